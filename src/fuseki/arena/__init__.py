"""Games between players: matches of GTP engines, evaluations of agents, generated corpora, ratings.

Above the agents (it plays them) and below training (the RL loop gates on an
evaluation) and the frontends.
"""
