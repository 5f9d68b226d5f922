# Rules for ldp_sparse: experiments, then tables/figures. (filled in by its issue)
