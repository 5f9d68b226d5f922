# Rules for priscrowd: experiments, then tables/figures. (filled in by its issue)
