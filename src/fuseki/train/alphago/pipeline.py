"""``fuseki alphago train``: AlphaGo's training pipeline as resumable stages of one run folder.

The stages, in order (book ch. 13, figure 13.2; Silver et al. 2016, figure 1):

==========  ====================================================================  ===========================
stage       what                                                                  held-out metric
==========  ====================================================================  ===========================
data        the corpora's games encoded with the 48 AlphaGo planes (the shards    positions, games
            of ``fuseki data process``), split by game into train and test
rollout     the fast rollout policy (:mod:`fuseki.train.alphago.rollout`) on the  top-1 on the test games
            same games and split
sl          the SL policy network on the shards (``fuseki train supervised``)     top-1 on the test games
rl          the RL policy: policy gradient from the SL policy by self-play        RL against SL, wins of
            (``fuseki rl-loop --method pg``, every round's candidate kept)         ``rl_eval_games``
value_data  one position from each of ``value_games`` self-play games (SL policy  positions
            to a random move ``U``, then the RL policy) with the outcome
value       the value network on those positions                                  MSE, train and test
==========  ====================================================================  ===========================

Everything goes into ``--out DIR``: ``alphago.json`` (the settings, each
finished stage's metrics and files; rewritten atomically after every
stage), ``metrics.md`` (the table of the metrics beside the paper's), and
``model.json``, which makes the folder a model for ``--bot alphago --model
DIR``: the SL policy (priors), the RL policy, the value network and the
rollout policy. A killed run goes on at the stage it reached, and inside a
stage where the stage's own job can (shards, training checkpoints, loop
rounds, chunks of games). A second run on the same folder is refused while
the first runs; a run with other settings names every setting that differs,
except ``--value-games``, which may grow (the value games already played are
kept, the rest are played and the value network is trained again), and the
settings of the rollout policy and of the value network, which no other
stage reads (that stage is made again).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fuseki.util.atomic import sha256_file, write_atomic, write_json_atomic
from fuseki.util.errors import InputError
from fuseki.util.runs import RunFolder, RunMismatch, field_defaults

__all__ = ["AlphaGoSettings", "MODEL_FILE", "STAGES", "STATE_FILE", "run_pipeline", "run_folder"]

STATE_FILE = "alphago.json"
MODEL_FILE = "model.json"
METRICS_FILE = "metrics.md"
STAGES = ("data", "rollout", "sl", "rl", "value_data", "value")
FORMAT = "fuseki-alphago-run"

#: The paper's figures (Silver et al. 2016: text, Methods, Extended Data Tables 3 and 4) and the book's (ch. 13).
PAPER = {
    "rollout_top1": 0.242,  # the rollout policy, 8 million Tygem positions, 2 µs a move
    "sl_top1": 0.570,  # 13 layers, 192 filters, all 48 features, KGS test set (55.7 % with raw board and history only)
    "rl_vs_sl": 0.80,  # the RL policy won more than 80 % of its games against the SL policy
    "value_train_mse": 0.226,
    "value_test_mse": 0.234,
}


@dataclasses.dataclass(frozen=True)
class AlphaGoSettings:
    """Everything that decides the run's results (not the workers, the device or the progress output)."""

    corpora: tuple[str, ...]
    size: int = 9
    komi: float = 7.5
    rules: str = "chinese"
    players: str | None = None
    test_fraction: float = 0.1
    seed: int = 0
    # rollout policy
    rollout_epochs: int = 4
    rollout_lr: float = 0.02
    # SL policy
    sl_layers: int = 10
    sl_filters: int = 96
    sl_epochs: int = 10
    sl_batch_size: int = 128
    sl_lr: float = 0.001
    sl_max_batches: int | None = None
    # RL policy
    rl_rounds: int = 1
    rl_games: int = 1000
    rl_eval_games: int = 100
    rl_lr: float = 1e-4
    # value network
    value_games: int = 5000
    value_chunk_games: int = 250
    value_layers: int | None = None  #: None: as the SL policy
    value_filters: int | None = None
    value_hidden: int = 256
    value_init: str = "sl"  #: "sl": start from the SL policy's convolutions (same shape only); "random"
    value_epochs: int = 10
    value_batch_size: int = 128
    value_lr: float = 3e-4

    def __post_init__(self) -> None:
        object.__setattr__(self, "corpora", tuple(str(Path(c).resolve()) for c in self.corpora))
        if not self.corpora:
            raise InputError("give at least one corpus (--corpus DIR)")
        for c in self.corpora:
            if not Path(c).exists():
                raise InputError(f"no corpus at {c}")
        if not 2 <= self.size <= 25:
            raise InputError(f"board size must be from 2 to 25, got {self.size}")
        if not 0 < self.test_fraction < 1:
            raise InputError(f"test fraction must be between 0 and 1, got {self.test_fraction}")
        for name in (
            "rollout_epochs",
            "sl_layers",
            "sl_filters",
            "sl_epochs",
            "sl_batch_size",
            "rl_rounds",
            "rl_games",
            "rl_eval_games",
            "value_games",
            "value_chunk_games",
            "value_hidden",
            "value_epochs",
            "value_batch_size",
        ):
            if getattr(self, name) < 1:
                raise InputError(f"{name.replace('_', ' ')} must be at least 1, got {getattr(self, name)}")
        if self.sl_layers < 2:
            raise InputError("the SL policy needs at least 2 layers")
        if self.value_init not in ("sl", "random"):
            raise InputError(f"value init must be 'sl' or 'random', got {self.value_init!r}")

    @property
    def value_shape(self) -> tuple[int, int]:
        return (self.value_layers or self.sl_layers, self.value_filters or self.sl_filters)

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()}


#: Settings that may grow on a finished or stopped run, and the stages that are then made again.
GROWABLE = {"value_games": ("value_data", "value")}
#: Settings of a last stage that nothing else reads: they may change, and that stage is made again.
CHANGEABLE = {
    **{
        key: ("value",)
        for key in ("value_layers", "value_filters", "value_hidden", "value_init", "value_epochs", "value_batch_size", "value_lr")
    },
    **{key: ("rollout",) for key in ("rollout_epochs", "rollout_lr")},
}


def _grown(theirs: dict[str, Any], mine: dict[str, Any], defaults: dict[str, Any]) -> dict[str, tuple[Any, tuple[str, ...]]]:
    """The growable settings that are larger now and the changeable ones that differ (old value and stages to
    make again); ``theirs`` is changed to match, so that the settings check passes them."""
    grown = {}
    for key, stages in GROWABLE.items():
        old = theirs.get(key, defaults.get(key))
        if isinstance(old, int) and mine[key] > old:
            grown[key] = (old, stages)
            theirs[key] = mine[key]
    for key, stages in CHANGEABLE.items():
        old = theirs.get(key, defaults.get(key))
        if old != mine[key]:
            grown[key] = (old, stages)
            theirs[key] = mine[key]
    return grown


def run_folder(out: str | Path) -> RunFolder:
    return RunFolder(Path(out), STATE_FILE, "an AlphaGo run with other settings", "an AlphaGo run state file")


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


class _Run:
    """One locked run folder: the state, the settings, the helpers every stage uses."""

    def __init__(
        self, settings: AlphaGoSettings, out: Path, state: dict[str, Any], workers: int, device: str, say: Callable[[str], None]
    ) -> None:
        self.settings = settings
        self.out = out
        self.state = state
        self.workers = workers
        self.device = device
        self.say = say

    def save(self) -> None:
        write_json_atomic(self.out / STATE_FILE, self.state)

    def done(self, stage: str) -> bool:
        return bool(self.state["stages"].get(stage, {}).get("done"))

    def finish(self, stage: str, record: dict[str, Any], seconds: float) -> None:
        self.state["stages"][stage] = {**record, "done": True, "finished": _now(), "seconds_last_run": round(seconds, 1)}
        self.save()
        write_atomic(self.out / METRICS_FILE, metrics_table(self.state).encode("utf-8"))


# ---- stages -------------------------------------------------------------------------------------


def _stage_data(run: _Run) -> dict[str, Any]:
    from fuseki.data.processor import process_games

    s = run.settings
    summary = process_games(
        list(s.corpora),
        run.out / "shards",
        encoder="alphago",
        size=s.size,
        test_fraction=s.test_fraction,
        seed=s.seed,
        workers=run.workers,
        players=s.players,
        progress=lambda e: run.say(f"data: {getattr(e, 'message', e)}"),
    )
    if not summary["complete"]:
        raise RuntimeError("the shards are not complete")
    return {k: summary[k] for k in ("train_games", "test_games", "positions", "skipped", "shards")}


def _split_ids(run: _Run) -> tuple[list[str], list[str]]:
    from fuseki.data.sampler import Split

    split = Split.from_dict(json.loads((run.out / "shards" / "split.json").read_text(encoding="utf-8")))
    return list(split.train), list(split.test)


def _stage_rollout(run: _Run) -> dict[str, Any]:
    from fuseki.train.alphago.games import load_move_arrays
    from fuseki.train.alphago.rollout import RolloutTrainConfig, train_rollout_policy

    s = run.settings
    train_ids, test_ids = _split_ids(run)
    train = load_move_arrays(train_ids, s.size, players=s.players)
    test = load_move_arrays(test_ids, s.size, players=s.players)
    run.say(f"rollout: {train.examples} training and {test.examples} test positions")
    policy, history = train_rollout_policy(
        train, test, RolloutTrainConfig(epochs=s.rollout_epochs, lr=s.rollout_lr, seed=s.seed), progress=run.say
    )
    speed = _rollout_speed(policy, s)
    policy.metadata["speed"] = speed
    policy.save(run.out / "rollout.safetensors")
    last = history[-1]
    return {
        "file": "rollout.safetensors",
        "test_top1": last["test_top1"],
        "train_top1": last["train_top1"],
        "test_positions": last["test_positions"],
        "train_positions": last["train_positions"],
        "history": history,
        "speed": speed,
    }


def _rollout_speed(policy: Any, s: AlphaGoSettings) -> dict[str, Any]:
    """Rollouts a CPU-second from the empty board (whole games), and microseconds a move."""
    import time as _t

    from fuseki.go import GameState
    from fuseki.go.rules import Rules

    state = GameState.new(s.size, Rules.preset(s.rules).replace(komi=s.komi))
    policy.rollout_value(state, 2)
    t0 = _t.process_time()
    count = 200
    policy.rollout_value(state, count)
    cpu = _t.process_time() - t0
    return {"rollouts_per_cpu_second_from_empty_board": round(count / cpu, 1) if cpu > 0 else None}


def _stage_sl(run: _Run) -> dict[str, Any]:
    from fuseki.train.supervised import TrainConfig, train_supervised

    s = run.settings
    out = run.out / "sl"
    config = TrainConfig(
        shards=str(run.out / "shards"),
        network="alphago-policy",
        out=str(out),
        net_options={"layers": s.sl_layers, "filters": s.sl_filters},
        optimizer="adam",
        lr=s.sl_lr,
        weight_decay=1e-4,
        batch_size=s.sl_batch_size,
        epochs=s.sl_epochs,
        schedule="cosine",
        seed=s.seed,
        device=run.device,
        resume=(out / "checkpoint.pt").exists(),
        max_batches=s.sl_max_batches,
        augment=True,
    )
    result = train_supervised(config)
    result.save_agent(run.out / "sl_policy.safetensors")
    final = result.final
    return {
        "file": "sl_policy.safetensors",
        "test_top1": final.get("test_top1"),
        "test_top5": final.get("test_top5"),
        "train_top1": final.get("train_top1"),
        "parameters": result.parameters,
        "epochs": result.epochs,
        "history": [{k: m.get(k) for k in ("epoch", "train_top1", "test_top1", "test_loss", "seconds")} for m in result.metrics],
    }


def _stage_rl(run: _Run) -> dict[str, Any]:
    from fuseki.train.rl_loop import LoopSettings, run_loop

    s = run.settings
    loop = LoopSettings(
        method="pg",
        agent=str(run.out / "sl_policy.safetensors"),
        games=s.rl_games,
        eval_games=s.rl_eval_games,
        keep_latest=True,
        seed=s.seed,
        lr=s.rl_lr,
        komi=s.komi,
        rules=s.rules,
    )
    state = run_loop(
        loop,
        run.out / "rl",
        s.rl_rounds,
        workers=run.workers,
        device=run.device,
        progress=lambda e: run.say(f"rl: {getattr(e, 'message', e)}"),
    )
    champion = run.out / "rl" / state["champion"]
    shutil.copyfile(champion, run.out / "rl_policy.tmp")
    (run.out / "rl_policy.tmp").replace(run.out / "rl_policy.safetensors")
    rounds = [
        {"round": r["round"], **{k: r["eval"][k] for k in ("wins", "losses", "draws", "win_rate", "p_value")}} for r in state["rounds"]
    ]
    if s.rl_rounds == 1:
        vs_sl = rounds[0]
    else:
        vs_sl = _rl_against_sl(run)
    return {"file": "rl_policy.safetensors", "rounds": rounds, "rl_vs_sl": vs_sl}


def _rl_against_sl(run: _Run) -> dict[str, Any]:
    """The final RL policy (A) against the SL policy (B), ``rl_eval_games`` games, colours alternating."""
    from fuseki.arena.eval_settings import EvalSettings
    from fuseki.arena.evaluate import evaluate
    from fuseki.util.stats import binomial_test

    s = run.settings
    es = EvalSettings(
        agent_a=f"file:{(run.out / 'rl_policy.safetensors').resolve()}",
        agent_b=f"file:{(run.out / 'sl_policy.safetensors').resolve()}",
        size=s.size,
        komi=s.komi,
        rules=s.rules,
        seed=s.seed + 1,
    )
    summary = evaluate(es, s.rl_eval_games, sgf_dir=run.out / "rl_vs_sl", workers=run.workers)
    m = summary.match
    wins, losses, draws = int(m.a_wins), int(m.b_wins), int(m.draws)
    decided = wins + losses
    return {
        "wins": wins,
        "losses": losses,
        "draws": draws,
        "win_rate": (wins + 0.5 * draws) / max(1, wins + losses + draws),
        "p_value": binomial_test(wins, decided, alternative="greater") if decided else None,
    }


def _stage_value_data(run: _Run) -> dict[str, Any]:
    from fuseki.train.alphago.value_data import ValueDataSettings, make_value_data

    s = run.settings
    vs = ValueDataSettings(
        sl_policy=str(run.out / "sl_policy.safetensors"),
        rl_policy=str(run.out / "rl_policy.safetensors"),
        games=s.value_games,
        seed=s.seed,
        chunk_games=s.value_chunk_games,
        komi=s.komi,
        rules=s.rules,
    )
    device = run.device if run.device != "auto" else "cpu"
    return make_value_data(vs, run.out / "value_data", workers=run.workers, device=device, progress=run.say)


def _stage_value(run: _Run) -> dict[str, Any]:
    from fuseki.agents.agent_file import save_agent
    from fuseki.encoders import get_encoder
    from fuseki.nets.registry import build_network
    from fuseki.train.alphago.value import ValueTrainConfig, train_value_network
    from fuseki.train.alphago.value_data import load_value_data

    import torch

    s = run.settings
    chunks = run.state["stages"]["value_data"]["chunks"]
    features, z, chunk = load_value_data(run.out / "value_data", chunks)
    layers, filters = s.value_shape
    options = {"layers": layers, "filters": filters, "hidden": s.value_hidden}
    enc = get_encoder("alphago49", s.size)
    torch.manual_seed(s.seed)
    model = build_network("alphago-value", in_planes=enc.num_planes, size=s.size, num_moves=enc.num_moves, **options)
    init = "random"
    if s.value_init == "sl" and s.value_shape == (s.sl_layers, s.sl_filters):
        from fuseki.agents.agent_file import load_agent_file
        from fuseki.nets.alphago import copy_policy_body

        policy, _ = load_agent_file(run.out / "sl_policy.safetensors")
        copy_policy_body(policy, model)
        init = "sl"
    history = train_value_network(
        model,
        features,
        z,
        chunk,
        ValueTrainConfig(epochs=s.value_epochs, batch_size=s.value_batch_size, lr=s.value_lr, seed=s.seed),
        device=run.device,
        progress=run.say,
    )
    last = history[-1]
    save_agent(
        run.out / "value.safetensors",
        model.cpu(),
        encoder=enc,
        network="alphago-value",
        network_options=options,
        kind="value",
        metadata={"trainer": "fuseki alphago train (value)", "history": history, "positions": int(len(z)), "init": init},
    )
    return {
        "file": "value.safetensors",
        "train_mse": last["final_train_mse"],
        "test_mse": last["test_mse"],
        "baseline_test_mse": last["baseline_test_mse"],
        "train_positions": last["train_positions"],
        "test_positions": last["test_positions"],
        "init": init,
        "history": history,
    }


_RUNNERS = {
    "data": _stage_data,
    "rollout": _stage_rollout,
    "sl": _stage_sl,
    "rl": _stage_rl,
    "value_data": _stage_value_data,
    "value": _stage_value,
}


# ---- the table ---------------------------------------------------------------------------------


def _pct(x: Any) -> str:
    return "–" if x is None else f"{100 * float(x):.1f} %"


def metrics_table(state: dict[str, Any]) -> str:
    """``metrics.md``: each finished stage's held-out metric beside the paper's."""
    st = state["stages"]
    rows = ["| stage | ours | the paper (Silver et al. 2016) |", "|---|---|---|"]
    if "data" in st:
        d = st["data"]
        rows.append(
            f"| data | {d['positions']:,} positions from {d['train_games']:,} training and "
            f"{d['test_games']:,} test games | 30 million positions from 160,000 KGS games |"
        )
    if "rollout" in st:
        r = st["rollout"]
        speed = r.get("speed", {}).get("rollouts_per_cpu_second_from_empty_board")
        rows.append(
            f"| rollout policy, top-1 on held-out games | {_pct(r['test_top1'])} ({r['test_positions']:,} "
            f"positions); {speed} rollouts a CPU-second from the empty board | 24.2 %, 2 µs a move |"
        )
    if "sl" in st:
        r = st["sl"]
        rows.append(
            f"| SL policy, top-1 on held-out games | {_pct(r['test_top1'])} (top-5 {_pct(r.get('test_top5'))}, "
            f"{r['parameters']:,} weights) | 57.0 % (13 layers × 192 filters) |"
        )
    if "rl" in st:
        v = st["rl"]["rl_vs_sl"]
        rows.append(
            f"| RL policy against the SL policy | {v['wins']}-{v['losses']}"
            + (f"-{v['draws']}" if v.get("draws") else "")
            + f", {_pct(v['win_rate'])} (one-sided p = {v['p_value']:.3g}) | more than 80 % |"
        )
    if "value_data" in st:
        v = st["value_data"]
        rows.append(
            f"| value data | {v['positions']:,} positions, one from each of {v['games']:,} games | "
            f"30 million positions from 30 million games |"
        )
    if "value" in st:
        v = st["value"]
        rows.append(
            f"| value network, MSE (±1 outcomes) | train {v['train_mse']:.3f}, test {v['test_mse']:.3f} "
            f"(a constant guess: {v['baseline_test_mse']:.3f}) | train 0.226, test 0.234 |"
        )
    return "\n".join(rows) + "\n"


# ---- the run --------------------------------------------------------------------------------------


def _model_manifest(run: _Run) -> dict[str, Any]:
    s = run.settings
    files = {
        "sl_policy": "sl_policy.safetensors",
        "rl_policy": "rl_policy.safetensors",
        "value": "value.safetensors",
        "rollout": "rollout.safetensors",
    }
    return {
        "format": "fuseki-alphago-model",
        "version": 1,
        "board_size": s.size,
        "komi": s.komi,
        "rules": s.rules,
        "files": files,
        "sha256": {k: sha256_file(run.out / f) for k, f in files.items()},
        "metrics": {
            "rollout_test_top1": run.state["stages"]["rollout"]["test_top1"],
            "sl_test_top1": run.state["stages"]["sl"]["test_top1"],
            "rl_vs_sl": run.state["stages"]["rl"]["rl_vs_sl"],
            "value_train_mse": run.state["stages"]["value"]["train_mse"],
            "value_test_mse": run.state["stages"]["value"]["test_mse"],
        },
        "created": _now(),
    }


def run_pipeline(
    settings: AlphaGoSettings,
    out_dir: str | Path,
    *,
    stop_after: str | None = None,
    workers: int = 1,
    device: str = "auto",
    progress: Callable[[str], None] | None = None,
    command: str | None = None,
) -> dict[str, Any]:
    """Run (or resume) the stages in ``out_dir`` up to ``stop_after`` (default: all); returns the state."""
    if stop_after is not None and stop_after not in STAGES:
        raise InputError(f"unknown stage {stop_after!r}; one of {', '.join(STAGES)}")
    say = progress or (lambda _line: None)
    out = Path(out_dir)
    folder = run_folder(out)
    with folder.locked():
        saved = folder.read()
        mine = settings.to_dict()
        if saved is not None:
            if saved.get("format") != FORMAT or not isinstance(saved.get("settings"), dict):
                raise RunMismatch(f"{folder.settings_path} is not {folder.file_kind}; use another --out")
            theirs = dict(saved["settings"])
            defaults = field_defaults(AlphaGoSettings)
            grown = _grown(theirs, mine, defaults)
            folder.check(theirs, mine, defaults=defaults)
            state = saved
            for key, (old, stages) in grown.items():
                say(
                    f"{key.replace('_', ' ')} changed from {old} to {mine[key]}: "
                    f"{' and '.join(stages)} will be made again (finished games are kept)"
                )
                for stage in stages:
                    state["stages"].pop(stage, None)
            state["settings"] = mine
        else:
            state = {"format": FORMAT, "version": 1, "created": _now(), "settings": mine, "stages": {}}
        if command:
            state["command"] = command
        run = _Run(settings, out, state, workers, device, say)
        run.save()
        last = STAGES.index(stop_after) if stop_after else len(STAGES) - 1
        for stage in STAGES[: last + 1]:
            if run.done(stage):
                say(f"{stage}: done earlier")
                continue
            say(f"{stage}: starting")
            t0 = time.perf_counter()
            record = _RUNNERS[stage](run)
            run.finish(stage, record, time.perf_counter() - t0)
            say(f"{stage}: done in {time.perf_counter() - t0:.0f} s")
        if all(run.done(stage) for stage in STAGES):
            write_json_atomic(out / MODEL_FILE, _model_manifest(run))
        return run.state
