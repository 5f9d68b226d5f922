# Rules for pptd: experiments, then tables/figures. (filled in by its issue)
