"""Agent files shipped with fuseki, found by name (``fuseki play --model NAME``).

This folder holds ``NAME.safetensors`` agent files (see
:mod:`fuseki.agents.agent_file` and ``docs/agents.md``); ``$FUSEKI_MODELS``
adds more folders, searched first.
"""
