"""Planning the sandbox: mechanism choice and fallback, what is reported as enforced, the
wrapped command and environment, and the typing of resource outcomes (no bot is started)."""

from __future__ import annotations

import dataclasses
import os
import signal
from pathlib import Path

import pytest

from arena.referee.sandbox import (
    Capabilities,
    CgroupSupport,
    Mechanism,
    ResourceUsage,
    SandboxConfig,
    SandboxError,
    classify_outcome,
    plan_sandbox,
)

NOTHING = Capabilities(
    euid=0,
    bwrap=None,
    bwrap_version=None,
    bwrap_problem="bwrap is not installed (Debian package 'bubblewrap')",
    unshare=None,
    unshare_problem="unshare cannot create PID and network namespaces here: EPERM",
    setpriv="/usr/bin/setpriv",
    cgroup=None,
    cgroup_problem="no cgroup hierarchy is mounted",
)
BWRAP = dataclasses.replace(NOTHING, bwrap="/usr/bin/bwrap", bwrap_problem=None)
UNSHARE = dataclasses.replace(NOTHING, unshare="/usr/bin/unshare", unshare_problem=None)
CGROUP = CgroupSupport(
    2, (("unified", "/sys/fs/cgroup/arena"),), frozenset({"memory", "pids", "cpu"})
)


def folder(path: Path, files: dict[str, str] | None = None) -> Path:
    """Creates a world-readable bot folder (the sandbox's user must be able to read it)."""
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(0o755)
    for name, text in (files or {}).items():
        (path / name).write_text(text)
        (path / name).chmod(0o755)
    return path


# -- choice and fallback --------------------------------------------------------------------------


def test_bwrap_is_chosen_when_it_works() -> None:
    """With bubblewrap working, the plan uses it and warns about nothing but the cgroup."""
    plan = plan_sandbox(SandboxConfig(), dataclasses.replace(BWRAP, cgroup=CGROUP))
    assert plan.mechanism is Mechanism.BWRAP
    assert plan.warnings == ()


def test_unshare_is_the_fallback_and_the_warning_names_bwrap() -> None:
    """Without bubblewrap the plan falls back to unshare and says the filesystem is visible."""
    plan = plan_sandbox(SandboxConfig(), UNSHARE)
    assert plan.mechanism is Mechanism.UNSHARE
    assert any("bubblewrap" in w and "filesystem" in w for w in plan.warnings)


def test_rlimits_is_the_last_resort_and_every_missing_mechanism_is_named() -> None:
    """With nothing available, the plan uses rlimits and warns about bwrap, unshare and cgroups."""
    plan = plan_sandbox(SandboxConfig(), NOTHING)
    assert plan.mechanism is Mechanism.RLIMITS
    text = "\n".join(plan.warnings)
    assert "bubblewrap" in text
    assert "no PID or network namespace" in text
    assert "no usable cgroup" in text


def test_a_forced_mechanism_that_is_missing_is_an_error() -> None:
    """Insisting on bwrap where it does not work raises SandboxError with the reason."""
    with pytest.raises(SandboxError, match="bubblewrap"):
        plan_sandbox(SandboxConfig(mechanism="bwrap"), UNSHARE)


def test_without_a_memory_cgroup_memory_becomes_an_address_space_limit() -> None:
    """No memory cgroup: RLIMIT_AS is set to memory_mb and the warning mentions node and Java."""
    plan = plan_sandbox(SandboxConfig(memory_mb=700), NOTHING)
    assert ("AS", 700 << 20) in [(name, soft) for name, _r, soft, _h in plan.rlimits]
    assert any("node" in w and "Java" in w for w in plan.warnings)


def test_with_a_memory_cgroup_there_is_no_address_space_limit() -> None:
    """A memory cgroup replaces RLIMIT_AS, which node and Java do not tolerate."""
    plan = plan_sandbox(SandboxConfig(), dataclasses.replace(BWRAP, cgroup=CGROUP))
    assert "AS" not in [name for name, *_ in plan.rlimits]


def test_rlimit_cpu_is_a_backstop_when_the_cgroup_measures_cpu() -> None:
    """With cgroup accounting RLIMIT_CPU sits a second past the limit; without, at it."""
    with_cgroup = plan_sandbox(
        SandboxConfig(cpu_seconds=10), dataclasses.replace(BWRAP, cgroup=CGROUP)
    )
    without = plan_sandbox(SandboxConfig(cpu_seconds=10), BWRAP)
    assert ("CPU", 11) in [(n, s) for n, _r, s, _h in with_cgroup.rlimits]
    assert ("CPU", 10) in [(n, s) for n, _r, s, _h in without.rlimits]


def test_rlimits_without_a_cgroup_admits_that_setsid_escapers_survive() -> None:
    """The weakest plan says in describe() that setsid() escapes cleanup and the network stays."""
    text = plan_sandbox(SandboxConfig(), NOTHING).describe()
    assert "setsid() leaves the bot's process group and survives cleanup" in text
    assert "bots keep the host's network" in text


def test_describe_lists_what_is_enforced_and_what_is_not() -> None:
    """describe() has the mechanism, an enforced list and a not-enforced list."""
    text = plan_sandbox(SandboxConfig(), dataclasses.replace(BWRAP, cgroup=CGROUP)).describe()
    assert text.startswith("sandbox: bwrap + cgroup v2")
    assert "\nenforced:\n" in text
    assert "\nnot enforced:\n" in text
    assert "memory: 1024 MB" in text
    assert "network: none" in text
    assert "no seccomp" in text


def test_without_root_no_uid_change_is_planned() -> None:
    """A referee that is not root cannot change the bots' uid; the plan says whose uid it is."""
    plan = plan_sandbox(SandboxConfig(), dataclasses.replace(BWRAP, euid=1000))
    assert plan.drop is None
    assert any("referee's uid 1000" in item for item in plan.enforced)


@pytest.mark.parametrize(
    "changes",
    [{"memory_mb": 0}, {"cpu_seconds": -1}, {"scratch": "ram"}, {"mechanism": "docker"}],
    ids=["memory", "cpu", "scratch", "mechanism"],
)
def test_config_rejects_bad_values(changes: dict[str, object]) -> None:
    """Non-positive limits and unknown choices are a ValueError naming the field."""
    with pytest.raises(ValueError, match=next(iter(changes))):
        SandboxConfig(**changes)  # type: ignore[arg-type]


# -- the wrapped command --------------------------------------------------------------------------


def test_bwrap_binds_only_the_bots_folder_read_only(tmp_path: Path) -> None:
    """A folder bot's bwrap command binds its folder read-only, not /, and has no network."""
    bot = folder(tmp_path / "bot", {"main.py": "print()"})
    box = plan_sandbox(SandboxConfig(), BWRAP).prepare(["sh", "main.py"], cwd=str(bot))
    try:
        argv = box.argv
        assert argv[0] == "/usr/bin/bwrap"
        assert "--unshare-net" in argv
        assert "--unshare-pid" in argv
        pairs = list(zip(argv, argv[1:], argv[2:], strict=False))
        assert ("--ro-bind", str(bot), str(bot)) in pairs
        assert ("--ro-bind", "/", "/") not in pairs
        assert box.bot_argv == ["sh", str(bot / "main.py")]
        assert argv[-2:] == ["sh", str(bot / "main.py")]
    finally:
        box.close()
    assert not os.path.exists(box.workdir)


def test_folder_bot_arguments_outside_its_folder_are_not_bound(tmp_path: Path) -> None:
    """A folder bot's command naming a file outside its folder does not make it visible."""
    bot = folder(tmp_path / "bot", {"main.py": "print()"})
    other = folder(tmp_path / "other", {"secret.txt": "x"})
    box = plan_sandbox(SandboxConfig(), BWRAP).prepare(
        ["sh", "main.py", "../other/secret.txt"], cwd=str(bot)
    )
    try:
        assert str(other / "secret.txt") not in box.argv[: box.argv.index("--")]
        assert box.read_only == [str(bot)]
    finally:
        box.close()


def test_command_line_bot_may_name_files_anywhere(tmp_path: Path) -> None:
    """A command-line bot (no folder) gets read-only access to the files its command names."""
    script = folder(tmp_path / "scripts", {"bot.py": "print()"}) / "bot.py"
    box = plan_sandbox(SandboxConfig(), BWRAP).prepare(["sh", str(script)])
    try:
        assert box.read_only == [str(script)]
        assert "--ro-bind" in box.argv
        assert str(script) in box.argv
    finally:
        box.close()


def test_interpreter_outside_the_system_directories_has_its_prefix_bound(tmp_path: Path) -> None:
    """A program in some prefix's bin/ makes that prefix visible and first on PATH."""
    prefix = folder(tmp_path / "runtime")
    program = folder(prefix / "bin", {"node": "#!/bin/sh\n"}) / "node"
    box = plan_sandbox(SandboxConfig(), BWRAP).prepare([str(program), "-v"])
    try:
        assert str(prefix) in box.read_only
        assert box.env["PATH"].split(":")[0] == str(prefix / "bin")
    finally:
        box.close()


def test_allow_network_keeps_the_host_network(tmp_path: Path) -> None:
    """With allow_network the bwrap command has no --unshare-net."""
    box = plan_sandbox(SandboxConfig(allow_network=True), BWRAP).prepare(["true"])
    try:
        assert "--unshare-net" not in box.argv
    finally:
        box.close()


def test_environment_is_minimal_with_an_allow_list() -> None:
    """The bot's environment is PATH, HOME, LANG, TMPDIR and the allowed names only."""
    env = {"PATH": "/bin", "ARENA_TOKEN": "secret", "LANG": "fr_FR.UTF-8", "SEED": "3"}
    plan = plan_sandbox(SandboxConfig(env_allow=("SEED", "MISSING")), BWRAP)
    box = plan.prepare(["true"], env=env)
    try:
        assert box.env == {
            "PATH": box.env["PATH"],
            "HOME": box.workdir,
            "LANG": "fr_FR.UTF-8",
            "TMPDIR": "/tmp",
            "SEED": "3",
        }
    finally:
        box.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="the uid drop applies only when the referee is root")
def test_a_folder_the_bots_user_cannot_read_keeps_root_without_capabilities(
    tmp_path: Path,
) -> None:
    """A bot folder closed to uid 65534 is not refused: the bot keeps uid 0 with every
    capability dropped, and one warning names the folder and the command that fixes it."""
    bot = folder(tmp_path / "bot")
    bot.chmod(0o700)
    box = plan_sandbox(SandboxConfig(), BWRAP).prepare(["true"], cwd=str(bot))
    try:
        assert box.drop is None
        assert box.warnings == [
            f"uid 65534 cannot read {str(bot)!r} (it is not readable by others), so a bot"
            " that needs it runs as uid 0 without capabilities (it can read files only root"
            f" may read): chmod o+rX {bot} to run it as uid 65534"
        ]
        assert "--cap-drop" in box.argv
        assert "--cap-add" not in box.argv
        assert "--reuid=65534" not in box.argv
    finally:
        box.close()


# -- outcomes -------------------------------------------------------------------------------------


def test_an_oom_kill_is_a_memory_limit_with_its_evidence() -> None:
    """A counted OOM kill types the outcome memory_limit, whatever the exit signal."""
    usage = ResourceUsage(memory_peak_bytes=256 << 20, oom_kills=1, memory_limit_bytes=256 << 20)
    outcome = classify_outcome(usage, signal.SIGKILL)
    assert outcome is not None
    assert outcome.status == "memory_limit"
    assert "256 MB" in outcome.detail
    assert "1 OOM kill" in outcome.detail


@pytest.mark.parametrize(
    ("usage", "exit_signal"),
    [
        (ResourceUsage(cpu_seconds=3.1, cpu_limit_s=3, cpu_limit_hit=True), signal.SIGKILL),
        (ResourceUsage(cpu_limit_s=3), signal.SIGXCPU),
        (ResourceUsage(cpu_seconds=4.0, cpu_limit_s=3), signal.SIGKILL),
    ],
    ids=["watchdog", "sigxcpu", "sigkill-at-limit"],
)
def test_cpu_evidence_is_a_cpu_limit(usage: ResourceUsage, exit_signal: int) -> None:
    """The watchdog, SIGXCPU, or SIGKILL with the CPU time at the limit type cpu_limit."""
    outcome = classify_outcome(usage, exit_signal)
    assert outcome is not None
    assert outcome.status == "cpu_limit"


@pytest.mark.parametrize(
    ("usage", "exit_signal"),
    [
        (ResourceUsage(cpu_seconds=0.2, cpu_limit_s=3), signal.SIGKILL),
        (ResourceUsage(oom_kills=0), None),
        (ResourceUsage(), signal.SIGSEGV),
    ],
    ids=["killed-early", "clean-exit", "segfault"],
)
def test_other_ends_are_not_resource_outcomes(
    usage: ResourceUsage, exit_signal: int | None
) -> None:
    """A kill well under the CPU limit, a clean exit or a crash is no resource outcome."""
    assert classify_outcome(usage, exit_signal) is None


def test_detection_describes_every_mechanism(capabilities: Capabilities) -> None:
    """The measured capabilities name bwrap, unshare, setpriv, cgroups and rlimits."""
    text = capabilities.describe()
    for name in ("bwrap:", "unshare:", "setpriv:", "cgroups:", "rlimits:"):
        assert name in text


def test_security_doc_lists_every_default() -> None:
    """docs/security.md's defaults table names every SandboxConfig field with its default."""
    text = (Path(__file__).resolve().parents[3] / "docs" / "security.md").read_text()
    section = text.split("## Defaults", 1)[1].split("\n## ", 1)[0]
    documented: dict[str, str] = {}
    for row in section.splitlines():
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            for name in cells[0].split(","):
                documented[name.strip().strip("`")] = cells[1].split(",")[0].strip()
    defaults = SandboxConfig()
    for name in SandboxConfig.__dataclass_fields__:
        value = getattr(defaults, name)
        assert name in documented, f"{name} is missing from the defaults table"
        if isinstance(value, bool) or value is None or value == ():
            expected = {True: "True", False: "False", None: "None", (): "()"}[value]
            if name == "workdir_root":
                expected = "the temp dir"
        elif isinstance(value, int | float):
            expected = f"{value:g}"
        else:
            expected = f'`"{value}"`'
        assert documented[name] == expected, name
