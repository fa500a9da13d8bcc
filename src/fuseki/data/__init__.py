"""Game records and training data: KGS index and downloader, sampler, processor, shards, dataset, generators."""
