"""End-of-game dead-stone classification (Guisov 2006): thesis features, MLPs, RPROP family, scorer."""
