"""AlphaGo's training pipeline (book ch. 13; Silver et al. 2016): data, rollout policy, SL policy, RL policy,
value network, as resumable stages of one run folder (:mod:`fuseki.train.alphago.pipeline`)."""
