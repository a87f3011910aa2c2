"""docs/benchmarks.png: one figure, six panels, from one run's JSON."""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

SHELLPORT = "#1f77b4"
FLOOR = "#7f7f7f"
PEER = "#d62728"


def _color(name: str) -> str:
    if name.startswith("shellport"):
        return SHELLPORT
    if name == "floor" or name.startswith("subprocess") or name == "python-baseline":
        return FLOOR
    return PEER


def _med(vals: list[float | None]) -> float | None:
    v = sorted(x for x in vals if x is not None)
    return v[len(v) // 2] if v else None


def _bars(ax: Any, title: str, data: dict[str, float | None], unit: str, log: bool) -> None:
    names = [n for n, v in data.items() if v]
    vals = [data[n] for n in names]
    ax.barh(names, vals, color=[_color(n) for n in names])
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(unit, fontsize=8)
    if log and vals:
        ax.set_xscale("log")
    ax.tick_params(labelsize=8)
    ax.invert_yaxis()
    for i, v in enumerate(vals):
        ax.text(v, i, f" {v:.3g}", va="center", fontsize=7)


def draw(res: dict[str, Any], path: str) -> str:
    c = res.get("cases", {})
    fig, axes = plt.subplots(3, 3, figsize=(15, 12))
    pt = c.get("persistent_true", {}).get("contenders", {})
    _bars(
        axes[0][0],
        "persistent `true` round trip, p50",
        {n: v["p50"] * 1e3 for n, v in pt.items()},
        "ms (log)",
        True,
    )
    so = c.get("seq_output", {}).get("runs", {})
    _bars(
        axes[0][1],
        f"{c.get('seq_output', {}).get('command', 'seq')}: median time",
        {n: _med([r.get("seconds") for r in rs]) for n, rs in so.items()},
        "s",
        False,
    )
    failed = [
        f"{n}: {rs[0]['error']}" for n, rs in so.items() if rs and all("error" in r for r in rs)
    ]
    if failed:
        axes[0][1].text(
            0.98,
            0.98,
            "\n".join(failed),
            transform=axes[0][1].transAxes,
            ha="right",
            va="top",
            fontsize=7,
            color=PEER,
        )
    oc = c.get("oneshot_true", {}).get("contenders", {})
    _bars(
        axes[0][2],
        "one-shot `true`, p50",
        {n: v["p50"] * 1e3 for n, v in oc.items()},
        "ms",
        False,
    )
    ed = c.get("editor", {}).get("ops", {})
    ax = axes[1][0]
    names: list[str] = []
    for op in ed.values():
        names += [n for n in op.get("median_seconds", {}) if n not in names]
    width = 0.38
    for j, (op, v) in enumerate(ed.items()):
        vals = [(v["median_seconds"].get(n) or 0) * 1e3 for n in names]
        ax.barh(
            [i + j * width for i in range(len(names))],
            vals,
            height=width,
            label=op,
            color=["#9ecae1", "#3182bd"][j % 2],
        )
    ax.set_yticks([i + width / 2 for i in range(len(names))], names, fontsize=8)
    ax.set_xscale("log")
    ax.invert_yaxis()
    ax.legend(fontsize=8)
    ax.set_title(
        f"editor on a {c.get('editor', {}).get('file_bytes', 0) / 1e6:.0f} MB file",
        fontsize=10,
    )
    ax.set_xlabel("ms (log)", fontsize=8)
    ss = c.get("scale", {}).get("summary", {})
    ax = axes[1][1]
    sn = list(ss)
    for j, (key, label) in enumerate(
        (("p50", "p50"), ("p99", "p99"), ("solo_p99", "p99, one at a time"))
    ):
        ax.barh(
            [i + j * 0.27 for i in range(len(sn))],
            [(ss[n].get(key) or 0) * 1e3 for n in sn],
            height=0.27,
            label=label,
            color=["#a1d99b", "#31a354", "#fdae6b"][j],
        )
    ax.axvline(5, color="black", lw=0.8, ls="--")
    ax.set_yticks([i + 0.27 for i in range(len(sn))], sn, fontsize=8)
    ax.set_xscale("log")
    ax.invert_yaxis()
    ax.legend(fontsize=7)
    ax.set_title(
        f"{c.get('scale', {}).get('sessions')} sessions calling at once (dashed: 5 ms)",
        fontsize=10,
    )
    ax.set_xlabel("ms (log)", fontsize=8)
    cs = c.get("cold_start", {}).get("median_phases", {})
    ax = axes[1][2]
    cn = [n for n in cs if cs[n]]
    left = [0.0] * len(cn)
    for key, col in (
        ("import", "#c6dbef"),
        ("runtime", "#6baed6"),
        ("first_call", "#08519c"),
    ):
        vals = [(cs[n].get(key) or 0) * 1e3 for n in cn]
        ax.barh(cn, vals, left=left, label=key.replace("_", " "), color=col)
        left = [a + b for a, b in zip(left, vals)]
    ax.invert_yaxis()
    ax.legend(fontsize=7)
    ax.tick_params(labelsize=8)
    ax.set_title("cold start (median)", fontsize=10)
    ax.set_xlabel("ms", fontsize=8)
    # Issue 16's cases: CPU per call, many live sessions, the no-op call.
    cpu = c.get("persistent_true", {}).get("cpu_per_call", {})
    _bars(
        axes[2][0],
        "CPU per persistent `true` (every process)",
        {n: v * 1e6 for n, v in cpu.items()},
        "µs",
        False,
    )
    lv = c.get("live_sessions", {})
    ls = lv.get("summary", {})
    ax = axes[2][1]
    ln = list(ls)
    for j, (key, label) in enumerate(
        (("open_seconds", "open all"), ("close_seconds", "close all"))
    ):
        ax.barh(
            [i + j * 0.4 for i in range(len(ln))],
            [ls[n].get(key) or 0 for n in ln],
            height=0.4,
            label=label,
            color=["#9ecae1", "#3182bd"][j],
        )
    ax.set_yticks([i + 0.2 for i in range(len(ln))], ln, fontsize=8)
    ax.invert_yaxis()
    ax.legend(fontsize=7)
    ax.set_title(f"{lv.get('sessions')} live persistent sessions", fontsize=10)
    ax.set_xlabel("s", fontsize=8)
    tr = c.get("transport", {}).get("view 2-byte file", {}).get("contenders", {})
    noop = {f"shellport-{n}": (v.get("p50") or 0) * 1e3 for n, v in tr.items()}
    floor = c.get("persistent_true", {}).get("contenders", {}).get("floor", {}).get("p50")
    _bars(
        axes[2][2],
        "no-op call (2-byte view) p50; floor: PTY round trip",
        {"floor": floor * 1e3, **noop} if floor else noop,
        "ms",
        False,
    )
    fig.suptitle(
        f"shellport {res.get('host', {}).get('shellport')} against its peers — "
        f"{res.get('date')} (blue: shellport, grey: floor and baselines, red: peers)",
        fontsize=11,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
