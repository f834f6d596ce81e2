"""LocalEnvironment against a real temporary directory and real subprocesses."""

import asyncio
import os
import select

import pytest

from adk_nb.environment import BaseEnvironment, ExecutionResult, LocalEnvironment


HANG_TIMEOUT = 3
"""Seconds before a hanging command is stopped: ample for the shell to reach its `echo` on a loaded machine;
the commands themselves sleep 300 s, so the outcome never depends on timing."""


@pytest.fixture
async def env(tmp_path):
  environment = LocalEnvironment(working_dir=tmp_path / "work")
  await environment.initialize()
  yield environment
  await environment.close()


def gone_or_zombie(pid: int) -> bool:
  """True when process `pid` has ended (it may wait, dead, for its new parent to reap it).

  A killed process closes its pipes a moment before it is marked dead, so this waits for the
  kernel's notice of its end (a pidfd turns readable) rather than reading its state once; 10 s
  bound the wait for a process that does not end.
  """
  try:
    fd = os.pidfd_open(pid)
  except ProcessLookupError:
    return True
  try:
    return bool(select.select([fd], [], [], 10)[0])
  finally:
    os.close(fd)


async def test_a_file_written_is_read_back_byte_for_byte_and_lands_in_the_working_directory(env):
  await env.write_file("notes/today.txt", "line one\r\nünïcode\n")
  await env.write_file(env.working_dir / "blob.bin", b"\x00\xff\x10")

  assert await env.read_file("notes/today.txt") == "line one\r\nünïcode\n".encode()
  assert await env.read_file("blob.bin") == b"\x00\xff\x10"
  assert (env.working_dir / "notes" / "today.txt").read_bytes() == "line one\r\nünïcode\n".encode()
  listing = await env.execute("cat notes/today.txt && ls")
  assert listing.stdout == "line one\r\nünïcode\nblob.bin\nnotes\n" and listing.exit_code == 0


async def test_a_path_outside_the_working_directory_is_refused_and_nothing_is_written(env, tmp_path):
  with pytest.raises(ValueError, match="escapes working directory.*give a path inside"):
    await env.write_file("../outside.txt", "x")
  assert not (tmp_path / "outside.txt").exists()
  with pytest.raises(ValueError, match="escapes working directory"):
    await env.read_file("/etc/hostname")
  with pytest.raises(FileNotFoundError):
    await env.read_file("missing.txt")


async def test_a_failing_command_returns_its_exit_code_stdout_and_stderr_instead_of_raising(env):
  result = await env.execute("echo partial; echo 'no such thing' >&2; exit 7")

  assert result == ExecutionResult(exit_code=7, stdout="partial\n", stderr="no such thing\n", timed_out=False)


async def test_a_command_that_hangs_is_killed_with_the_children_it_started_at_the_timeout(env):
  # The shell starts a sleeping child, records its pid, and waits for it: both must go at the timeout.
  result = await env.execute("echo started; sleep 300 & echo $! > child.pid; wait", timeout=HANG_TIMEOUT)

  assert result.timed_out is True and result.exit_code != 0
  assert result.stdout == "started\n"  # what it wrote before the timeout is kept
  child = int((env.working_dir / "child.pid").read_text())
  assert gone_or_zombie(child)


async def test_a_command_ignoring_sigterm_is_killed_outright_after_the_grace_period(env):
  env.terminate_grace_seconds = 0.2
  result = await env.execute("trap '' TERM; echo $$ > shell.pid; sleep 300 & echo $! > child.pid; wait; wait",
                             timeout=HANG_TIMEOUT)

  assert result.timed_out is True
  for name in ("shell.pid", "child.pid"):
    assert gone_or_zombie(int((env.working_dir / name).read_text()))


async def test_a_command_waiting_for_input_reads_end_of_file_instead_of_hanging(env):
  result = await env.execute("read line; echo \"read status $?\"", timeout=60)

  assert result.timed_out is False and result.stdout == "read status 1\n"


async def test_a_running_command_does_not_block_the_event_loop(env):
  # The command waits for a file that only a coroutine on the same loop creates.
  command = asyncio.ensure_future(
      env.execute("while [ ! -f go ]; do sleep 0.01; done; echo released", timeout=60))
  await asyncio.sleep(0)  # let the subprocess start; the loop stays free while it runs
  (env.working_dir / "go").write_text("")
  result = await command

  assert result.stdout == "released\n" and result.timed_out is False


async def test_env_vars_reach_the_command(tmp_path):
  env = LocalEnvironment(working_dir=tmp_path, env_vars={"ADK_NB_GREETING": "bonjour"})
  await env.initialize()
  assert (await env.execute("echo $ADK_NB_GREETING; pwd")).stdout == f"bonjour\n{tmp_path.resolve()}\n"


async def test_without_a_working_directory_a_temporary_one_is_made_and_removed_on_close(tmp_path):
  env = LocalEnvironment()
  assert isinstance(env, BaseEnvironment) and not env.is_initialized
  with pytest.raises(RuntimeError, match=r"initialize\(\)` first"):
    env.working_dir

  await env.initialize()
  workdir = env.working_dir
  assert workdir.is_dir() and workdir.name.startswith("adk_workspace_") and env.is_initialized
  await env.close()
  assert not workdir.exists() and not env.is_initialized

  given = LocalEnvironment(working_dir=tmp_path / "kept")
  await given.initialize()
  await given.write_file("a.txt", "a")
  await given.close()
  assert (tmp_path / "kept" / "a.txt").read_text() == "a"  # a directory you gave is never deleted


async def test_a_cancelled_command_is_stopped_with_its_children(env):
  fifo = env.working_dir / "started"
  os.mkfifo(fifo)
  running = asyncio.ensure_future(env.execute("sleep 300 & echo $! > started; wait", timeout=60))
  child = int(await asyncio.to_thread(fifo.read_text))  # returns once the shell has started its child

  running.cancel()  # a kernel interrupt, run.cancel(), a failing sibling call
  with pytest.raises(asyncio.CancelledError):
    await running
  assert gone_or_zombie(child)


async def test_output_past_the_cap_is_counted_not_kept_and_a_note_says_so(env):
  env.max_output_bytes = 1000
  result = await env.execute("head -c 300000 /dev/zero | tr '\\0' a; echo done >&2")

  assert result.stdout == "a" * 1000 + "\n... (output cut: 300000 bytes written, the first 1000 kept)"
  assert result.stderr == "done\n" and result.exit_code == 0
