"""`prepare` with the tournament's sandbox plan: builds and handshakes run contained, as real
processes, under each mechanism this machine has (skipped where one is missing).

A sandboxed build runs as the bots' user on a private copy of its folder, copied back when it
succeeds; it has no network, cannot write outside its folder and scratch directory, cannot see
other entrants' folders, and leaves no process behind. The handshake starts the bot exactly as
a match does. ``sandbox=None`` keeps the uncontained behaviour.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import stat
import tempfile
import textwrap
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
import trio

from arena.referee.sandbox import Capabilities, Mechanism, SandboxPlan, detect_capabilities
from arena.tournament.entrants import Entrant, Excluded, discover, prepare
from tests.processes import live_processes_with
from tests.referee.sandbox.conftest import PYTHON, make_plan, our_cgroups

pytestmark = pytest.mark.timeout(60)

#: A bot that answers ``hello`` with ``ready`` (named after argv[1], if given) and then plays
#: the first legal move; standard library only, so Debian's python3 runs it anywhere.
READY_BOT = """\
import json, sys
name = sys.argv[1] if len(sys.argv) > 1 else "bot"
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready", "name": name}), flush=True)
    elif message["type"] == "request":
        reply = {"type": "move", "id": message["id"], "move": message["legal"][0]}
        print(json.dumps(reply), flush=True)
    elif message["type"] == "match_end":
        break
"""


@pytest.fixture(scope="module")
def capabilities() -> Capabilities:
    """What this machine allows (measured once; cached by the sandbox module)."""
    return detect_capabilities()


@pytest.fixture(params=list(Mechanism), ids=lambda m: m.value)
def mechanism(request: pytest.FixtureRequest) -> Mechanism:
    """Each containment mechanism in turn."""
    value: Mechanism = request.param
    return value


@pytest.fixture
def root(capabilities: Capabilities) -> Iterator[Path]:
    """A world-readable folder for bot folders, reachable by the bots' user under every
    mechanism (pytest's tmp_path is under a folder only root may enter); afterwards: no
    cgroup and no build copy or working directory of this referee is left."""
    path = Path(tempfile.mkdtemp(prefix="arena-prepare-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)
    assert our_cgroups(capabilities) == []
    ours = f".{os.getpid()}."
    temp = tempfile.gettempdir()
    left = [n for n in os.listdir(temp) if n.startswith("matador-") and ours in n]
    assert left == []


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP socket listening on 127.0.0.1 on the host: reachable without a sandbox."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


def accepted(server: socket.socket) -> bool:
    """Whether anything connected to the listener."""
    try:
        conn, _address = server.accept()
    except BlockingIOError:
        return False
    conn.close()
    return True


def make_bot(parent: Path, folder: str, files: dict[str, str], **fields: str) -> Path:
    """Writes a world-readable bot folder with ``files`` and a ``bot.toml`` of ``fields``."""
    path = parent / folder
    path.mkdir(parents=True)
    path.chmod(0o755)
    files = {**files, "bot.toml": "".join(f"{k} = {json.dumps(v)}\n" for k, v in fields.items())}
    for name, text in files.items():
        (path / name).write_text(textwrap.dedent(text))
        (path / name).chmod(0o644)
    return path


def py(*args: str) -> str:
    """A command line that runs Debian's python3 (readable by the bots' user everywhere)."""
    return shlex.join([PYTHON, *args])


def run_prepare(
    entrants: Sequence[Entrant],
    sandbox: SandboxPlan | None,
    *,
    startup_ms: int = 10_000,
    build_timeout_s: float = 20.0,
) -> tuple[list[Entrant], list[Excluded]]:
    """Runs `prepare` under trio with generous limits unless told otherwise."""

    async def main() -> tuple[list[Entrant], list[Excluded]]:
        return await prepare(
            entrants, startup_ms=startup_ms, build_timeout_s=build_timeout_s, sandbox=sandbox
        )

    return trio.run(main)


# -- builds -------------------------------------------------------------------------------------

#: Writes name.txt (and a folder of output) in the bot's folder, says who and where it ran.
WRITING_BUILD = """\
import json, os
from pathlib import Path
Path("name.txt").write_text("built\\n")
Path("out").mkdir(exist_ok=True)
Path("out/data.bin").write_bytes(b"x" * 1000)
print(json.dumps({"uid": os.getuid(), "cwd": os.getcwd(), "home": os.environ.get("HOME")}))
"""

#: Needs name.txt from the build, read from its own folder (its working directory is not it).
BUILT_BOT = """\
import json, sys
from pathlib import Path
name = (Path(__file__).resolve().parent / "name.txt").read_text().strip()
for line in sys.stdin:
    if json.loads(line)["type"] == "hello":
        print(json.dumps({"type": "ready", "name": name}), flush=True)
"""


def test_sandboxed_build_writes_its_folder_and_the_bot_then_runs(
    capabilities: Capabilities, mechanism: Mechanism, root: Path
) -> None:
    """The build writes files in its folder (through its private copy); they are there
    afterwards, owned like the folder, and the sandboxed handshake of the bot that needs them
    passes."""
    plan = make_plan(capabilities, mechanism)
    folder = make_bot(
        root,
        "builder",
        {"build.py": WRITING_BUILD, "bot.py": BUILT_BOT},
        name="builder",
        command=py("bot.py"),
        build=py("build.py"),
    )
    kept, excluded = run_prepare(discover([str(folder)]), plan)
    assert (excluded, [e.name for e in kept]) == ([], ["builder"])
    assert (folder / "name.txt").read_text() == "built\n"
    assert (folder / "out" / "data.bin").stat().st_size == 1000
    owner = folder.stat().st_uid
    assert {(folder / p).stat().st_uid for p in ("name.txt", "out", "out/data.bin")} == {owner}
    assert not any(name.startswith(".matador-copy.") for name in os.listdir(folder))


def test_sandboxed_build_runs_as_the_bots_user_in_its_folder(
    capabilities: Capabilities, root: Path
) -> None:
    """Under bwrap the build sees its folder at its own path, as the bots' user, with its
    own scratch HOME; what it printed is checked through a file it leaves in its folder."""
    plan = make_plan(capabilities, Mechanism.BWRAP)
    build = WRITING_BUILD.replace("print(json.dumps(", "Path('who.json').write_text(json.dumps(")
    folder = make_bot(
        root, "who", {"build.py": build}, name="who", command=py("-c", "pass"), build=py("build.py")
    )
    run_prepare(discover([str(folder)]), plan)  # the handshake fails: not the point here
    who = json.loads((folder / "who.json").read_text())
    assert who["cwd"] == str(folder)
    assert who["uid"] == (plan.drop[0] if plan.drop is not None else os.getuid())
    assert who["home"] != os.environ.get("HOME")
    assert not os.path.exists(who["home"])  # the scratch directory is removed


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no C compiler on this machine")
def test_sandboxed_c_build_compiles_and_the_compiled_bot_passes(
    capabilities: Capabilities, root: Path
) -> None:
    """A real compile under bwrap: gcc writes ./bot in the folder; the handshake runs it."""
    plan = make_plan(capabilities, Mechanism.BWRAP, memory_mb=256)
    source = r"""
        #include <stdio.h>
        #include <string.h>
        int main(void) {
            char line[65536];
            while (fgets(line, sizeof line, stdin)) {
                if (strstr(line, "\"hello\"")) {
                    puts("{\"type\": \"ready\", \"name\": \"fast-c\"}");
                    fflush(stdout);
                }
            }
            return 0;
        }
    """
    folder = make_bot(
        root,
        "fast-c",
        {"bot.c": source},
        name="fast-c",
        command="./bot",
        build="gcc -O2 -o bot bot.c",
    )
    kept, excluded = run_prepare(discover([str(folder)]), plan)
    assert (excluded, [e.name for e in kept]) == ([], ["fast-c"])
    assert os.access(folder / "bot", os.X_OK)


@pytest.mark.parametrize("mechanism", [Mechanism.BWRAP, Mechanism.UNSHARE], ids=lambda m: m.value)
def test_sandboxed_build_has_no_network(
    capabilities: Capabilities, mechanism: Mechanism, root: Path, listener: socket.socket
) -> None:
    """A build that connects to 127.0.0.1 fails; the reason names the sandbox and quotes the
    build's own output; nothing reached the host's listener; the folder is left as it was."""
    port = listener.getsockname()[1]
    build = f"""\
        import socket, sys
        from pathlib import Path
        Path("partial.txt").write_text("half done")
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
        except OSError as exc:
            sys.exit(f"cannot download the dependencies: {{exc}}")
        print("downloaded")
    """
    folder = make_bot(
        root, "fetcher", {"build.py": build}, name="fetcher", command=py("-c", "pass"),
        build=py("build.py"),
    )  # fmt: skip
    kept, [failure] = run_prepare(discover([str(folder)]), make_plan(capabilities, mechanism))
    assert kept == []
    assert failure.stage == "build"
    assert failure.reason.startswith(
        f"build {py('build.py')!r} failed (exit code 1) in the sandbox ({mechanism.value},"
        " no network, "
    )
    assert "its output ends with:\ncannot download the dependencies: [Errno" in failure.reason
    assert not accepted(listener)
    assert not (folder / "partial.txt").exists()  # a failed build is not copied back


def test_unsandboxed_build_is_unchanged(root: Path, listener: socket.socket) -> None:
    """``sandbox=None``: the build runs in the folder itself, as the referee's user, with the
    referee's environment and network, exactly as before."""
    port = listener.getsockname()[1]
    build = f"""\
        import json, os, socket
        from pathlib import Path
        socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
        Path("who.json").write_text(json.dumps([os.getuid(), os.getcwd(), os.environ.get("HOME")]))
    """
    folder = make_bot(
        root, "plain", {"build.py": build, "bot.py": READY_BOT}, name="plain",
        command=py("bot.py"), build=py("build.py"),
    )  # fmt: skip
    kept, excluded = run_prepare(discover([str(folder)]), None)
    assert (excluded, [e.name for e in kept]) == ([], ["plain"])
    uid, cwd, home = json.loads((folder / "who.json").read_text())
    assert (uid, cwd, home) == (os.getuid(), str(folder), os.environ.get("HOME"))
    assert accepted(listener)


def test_sandboxed_build_cannot_write_outside_its_folder(
    capabilities: Capabilities, mechanism: Mechanism, root: Path
) -> None:
    """Writing to another bot's folder fails under every mechanism (its own error is quoted);
    under bwrap the other folder does not even exist for the build, and what it writes to
    /tmp stays in its private /tmp."""
    outside = f"/tmp/arena-build-escape-{uuid.uuid4().hex}"
    other = make_bot(root, "other", {"bot.py": READY_BOT}, name="other", command=py("bot.py"))
    build = f"""\
        import os
        from pathlib import Path
        Path({outside!r}).write_text("escaped")
        print("other folder visible:", os.path.exists({str(other)!r}), flush=True)
        Path({str(other / "evil.txt")!r}).write_text("evil")
    """
    mine = make_bot(
        root, "mine", {"build.py": build}, name="mine", command=py("-c", "pass"),
        build=py("build.py"),
    )  # fmt: skip
    entrants = discover([str(mine), str(other)])
    try:
        kept, excluded = run_prepare(entrants, make_plan(capabilities, mechanism))
        assert [e.name for e in kept] == ["other"]
        [failure] = excluded
        assert failure.stage == "build"
        assert failure.reason.startswith(f"build {py('build.py')!r} failed (exit code 1)")
        assert sorted(os.listdir(other)) == ["bot.py", "bot.toml"]
        if mechanism is Mechanism.BWRAP:
            assert "other folder visible: False" in failure.output_tail
            assert "No such file or directory" in failure.reason
            assert not os.path.exists(outside)
        elif mechanism is Mechanism.UNSHARE and os.geteuid() == 0:
            # The other entrant's folder is masked by an empty read-only tmpfs.
            assert "Read-only file system" in failure.reason
        else:  # the whole filesystem is visible: file permissions stop the bots' user
            assert "Permission denied" in failure.reason
    finally:
        with_outside = Path(outside)
        if with_outside.exists():
            with_outside.unlink()


def test_sandboxed_build_cannot_reach_a_nested_entrants_folder(
    capabilities: Capabilities, root: Path
) -> None:
    """An entrant whose folder is inside another's: the outer one's build does not get it in
    its copy, and what it writes at that path is not copied back into it."""
    plan = make_plan(capabilities, Mechanism.BWRAP)
    build = """\
        import os
        from pathlib import Path
        seen = sorted(os.listdir("inner")) if os.path.exists("inner") else None
        Path("inner_seen.txt").write_text(str(seen))
        Path("inner").mkdir(exist_ok=True)
        Path("inner/evil.txt").write_text("evil")
    """
    outer = make_bot(
        root, "outer", {"build.py": build, "bot.py": READY_BOT}, name="outer",
        command=py("bot.py"), build=py("build.py"),
    )  # fmt: skip
    inner = make_bot(outer, "inner", {"bot.py": READY_BOT}, name="inner", command=py("bot.py"))
    kept, excluded = run_prepare(discover([str(outer), str(inner)]), plan)
    assert (excluded, [e.name for e in kept]) == ([], ["outer", "inner"])
    assert (outer / "inner_seen.txt").read_text() == "None"
    assert sorted(os.listdir(inner)) == ["bot.py", "bot.toml"]


def test_sandboxed_build_results_are_copied_back_safely(
    capabilities: Capabilities, root: Path
) -> None:
    """What the build removes is removed; a symlink planted in the folder is replaced, never
    written through; setuid bits are dropped; symlinks come back as symlinks."""
    plan = make_plan(capabilities, Mechanism.BWRAP)
    target = root / "precious.txt"
    target.write_text("precious")
    build = """\
        import os
        from pathlib import Path
        os.remove("old.txt")
        os.remove("link")  # a symlink the author planted, pointing outside the folder
        Path("link").write_text("a plain file now")
        Path("tool").write_text("#!/bin/sh\\n")
        os.chmod("tool", 0o4755)
        os.symlink("tool", "tool-link")
    """
    folder = make_bot(
        root, "tidy", {"build.py": build, "old.txt": "stale", "bot.py": READY_BOT},
        name="tidy", command=py("bot.py"), build=py("build.py"),
    )  # fmt: skip
    (folder / "link").symlink_to(target)
    kept, excluded = run_prepare(discover([str(folder)]), plan)
    assert (excluded, [e.name for e in kept]) == ([], ["tidy"])
    assert not (folder / "old.txt").exists()
    assert not (folder / "link").is_symlink()
    assert (folder / "link").read_text() == "a plain file now"
    assert target.read_text() == "precious"
    mode = (folder / "tool").stat().st_mode
    assert stat.S_IMODE(mode) == 0o755
    assert os.readlink(folder / "tool-link") == "tool"


def test_sandboxed_build_leaves_no_process_behind(
    capabilities: Capabilities, mechanism: Mechanism, root: Path
) -> None:
    """A build that starts a sleeper which calls setsid() (out of its process group) and
    exits: the build still finishes at once and the sleeper is gone (PID namespace, or the
    cgroup under rlimits)."""
    if mechanism is Mechanism.RLIMITS and capabilities.cgroup is None:
        pytest.skip("without a cgroup a setsid() escaper survives rlimits (documented)")
    marker = f"build-sleeper-{uuid.uuid4().hex}"
    build = f"""\
        import subprocess, sys
        code = "import os, time; os.setsid(); time.sleep(60)"
        subprocess.Popen([sys.executable, "-c", code, {marker!r}])
        print("started a sleeper")
    """
    folder = make_bot(
        root, "leaky", {"build.py": build, "bot.py": READY_BOT}, name="leaky",
        command=py("bot.py"), build=py("build.py"),
    )  # fmt: skip
    started = time.monotonic()
    kept, excluded = run_prepare(discover([str(folder)]), make_plan(capabilities, mechanism))
    assert (excluded, [e.name for e in kept]) == ([], ["leaky"])
    assert time.monotonic() - started < 5  # the sleeper did not keep the build's output open
    assert live_processes_with(marker) == []


def test_sandboxed_build_timeout_stops_it(
    capabilities: Capabilities, mechanism: Mechanism, root: Path
) -> None:
    """A sandboxed build that runs too long is stopped at its time limit, with nothing left
    running, and the folder keeps none of what it wrote."""
    marker = f"build-slow-{uuid.uuid4().hex}"
    build = f"""\
        import time
        from pathlib import Path
        Path("partial.txt").write_text("half done")
        print("compiling", flush=True)
        time.sleep(60)  # {marker}
    """
    folder = make_bot(
        root, "slow", {"build.py": build}, name="slow", command=py("-c", "pass"),
        build=py("build.py", marker),
    )  # fmt: skip
    started = time.monotonic()
    kept, [failure] = run_prepare(
        discover([str(folder)]), make_plan(capabilities, mechanism), build_timeout_s=0.5
    )
    assert time.monotonic() - started < 4
    assert kept == []
    assert failure.stage == "build"
    assert failure.reason == (
        f"build {py('build.py', marker)!r} did not finish within 0.5 s and was stopped; its"
        " output ends with:\ncompiling"
    )
    assert live_processes_with(marker) == []
    assert not (folder / "partial.txt").exists()


def test_sandboxed_build_over_its_memory_limit_says_so(
    capabilities: Capabilities, root: Path
) -> None:
    """A build that allocates past the plan's memory limit is killed, and the reason says it
    went over its memory limit."""
    if capabilities.cgroup is None or "memory" not in capabilities.cgroup.controllers:
        pytest.skip("no memory cgroup here: an OOM kill cannot be told from a crash")
    plan = make_plan(capabilities, Mechanism.BWRAP, memory_mb=64)
    build = "block = bytearray(256 << 20)\nprint('allocated')\n"
    folder = make_bot(
        root, "hog", {"build.py": build}, name="hog", command=py("-c", "pass"),
        build=py("build.py"),
    )  # fmt: skip
    kept, [failure] = run_prepare(discover([str(folder)]), plan)
    assert kept == []
    assert failure.stage == "build"
    assert "it went over its memory limit of 64 MB and the kernel killed it" in failure.reason


def test_build_limits_are_the_plans_with_the_builds_cpu_time(capabilities: Capabilities) -> None:
    """The build's plan keeps the memory, process and file limits and the mechanism, and
    takes its CPU time from the build's time limit, not the match's."""
    plan = make_plan(capabilities, Mechanism.BWRAP)
    build = plan.for_build(42.5)
    assert (build.mechanism, build.drop, build.cgroup) == (plan.mechanism, plan.drop, plan.cgroup)
    assert build.config.cpu_seconds == 42.5
    assert build.config.memory_mb == plan.config.memory_mb
    assert build.config.max_processes == plan.config.max_processes
    limits = {name: (soft, hard) for name, _which, soft, hard in build.rlimits}
    backstop = 1 if "cpu" in plan.cgroup_controllers else 0
    assert limits["CPU"] == (43 + backstop, 44 + backstop)
    assert limits["FSIZE"] == {n: (s, h) for n, _w, s, h in plan.rlimits}["FSIZE"]
    assert build.config.hidden_paths == plan.config.hidden_paths


# -- handshakes ---------------------------------------------------------------------------------

#: Answers ``ready`` only when it can reach the host's listener (argv[1] is its port).
NETWORK_BOT = """\
import json, socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2).close()
for line in sys.stdin:
    if json.loads(line)["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "online"}), flush=True)
"""


def test_handshake_runs_in_the_sandbox(
    capabilities: Capabilities, root: Path, listener: socket.socket
) -> None:
    """A bot that needs the network passes uncontained and with a plan that allows the
    network, and is excluded under the plan without it, with the sandbox named."""
    port = str(listener.getsockname()[1])
    folder = make_bot(
        root, "online", {"bot.py": NETWORK_BOT}, name="online", command=py("bot.py", port)
    )
    entrants = discover([str(folder)])
    assert run_prepare(entrants, None) == (entrants, [])
    assert accepted(listener)
    assert run_prepare(entrants, make_plan(capabilities, Mechanism.BWRAP, allow_network=True)) == (
        entrants,
        [],
    )
    assert accepted(listener)
    plan = make_plan(capabilities, Mechanism.BWRAP)
    kept, [failure] = run_prepare(entrants, plan)
    assert kept == []
    assert (failure.stage, failure.reason) == (
        "handshake",
        "exited (exit code 1) without answering 'hello'; it ran in the sandbox (bwrap, no network,"
        " its folder is read-only, it starts in an empty working directory"
        + ("" if plan.drop is None else f", as uid {plan.drop[0]}")
        + ")",
    )
    assert "ConnectionRefusedError" in failure.output_tail or "OSError" in failure.output_tail
    assert not accepted(listener)


def test_handshake_of_a_bot_that_reads_its_working_directory_is_excluded(
    capabilities: Capabilities, mechanism: Mechanism, root: Path
) -> None:
    """A bot that opens a file of its folder by a relative path works only uncontained (a
    sandboxed bot starts in an empty working directory): it is excluded at the handshake,
    as it would fail every match, and the reason says it ran in the sandbox."""
    bot = BUILT_BOT.replace('(Path(__file__).resolve().parent / "name.txt")', 'Path("name.txt")')
    folder = make_bot(
        root, "relative", {"bot.py": bot, "name.txt": "relative\n"}, name="relative",
        command=py("bot.py"),
    )  # fmt: skip
    entrants = discover([str(folder)])
    assert run_prepare(entrants, None) == (entrants, [])
    kept, [failure] = run_prepare(entrants, make_plan(capabilities, mechanism))
    assert kept == []
    assert failure.stage == "handshake"
    assert failure.reason.startswith(
        f"exited (exit code 1) without answering 'hello'; it ran in the sandbox ({mechanism.value}"
    )
    assert "FileNotFoundError" in failure.output_tail


def test_handshake_hides_the_other_entrants_folders(capabilities: Capabilities, root: Path) -> None:
    """During the handshake a bot cannot see an entrant folder nested inside its own."""
    snooper = """\
        import json, os, sys
        from pathlib import Path
        here = Path(__file__).resolve().parent
        ok = os.listdir(here / "inner") == []
        for line in sys.stdin:
            if ok and json.loads(line)["type"] == "hello":
                print(json.dumps({"type": "ready", "name": "outer"}), flush=True)
    """
    outer = make_bot(root, "outer", {"bot.py": snooper}, name="outer", command=py("bot.py"))
    inner = make_bot(outer, "inner", {"bot.py": READY_BOT}, name="inner", command=py("bot.py"))
    entrants = discover([str(outer), str(inner)])
    plan = make_plan(capabilities, Mechanism.BWRAP)
    assert run_prepare(entrants, plan) == (entrants, [])
