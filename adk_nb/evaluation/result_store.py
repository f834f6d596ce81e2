"""Where an eval run's case results go as they finish: one SQLite file per run, under `.adk_nb/eval/<run id>/`.

Each finished case run is one committed row, so memory stays flat however many cases run,
a killed run keeps everything it finished (`evaluate(..., resume=True)` runs only the rest),
and another process (or a notebook cell) can read partial results while the run goes on.
The rows hold ADK's `EvalCaseResult` JSON; frames, charts and `compare()` read them back one at a time.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import re
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Iterator, Optional, Union

from .eval_metrics import EvalStatus
from .eval_result import EvalCaseResult

STORE_FILE = "results.sqlite"
DEFAULT_ROOT = Path(".adk_nb") / "eval"
ROOT_ENV = "ADK_NB_EVAL_DIR"
"""Environment variable naming the folder runs are stored under (default `.adk_nb/eval` in the working folder)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS case_results (
  run INTEGER NOT NULL, eval_id TEXT NOT NULL, idx INTEGER NOT NULL, status TEXT NOT NULL,
  finished REAL NOT NULL, result TEXT NOT NULL, PRIMARY KEY (run, eval_id));
CREATE TABLE IF NOT EXISTS metric_scores (
  run INTEGER NOT NULL, eval_id TEXT NOT NULL, metric TEXT NOT NULL, score REAL, eval_status INTEGER NOT NULL,
  PRIMARY KEY (run, eval_id, metric));
"""


def default_root() -> Path:
  """The folder runs are stored under: $ADK_NB_EVAL_DIR, else `.adk_nb/eval` in the working folder."""
  return Path(os.environ.get(ROOT_ENV) or DEFAULT_ROOT)


def new_run_id(eval_set_id: str) -> str:
  """A file-safe, time-ordered run id: `<eval set id>_<UTC time>_<pid>`."""
  safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", eval_set_id).strip("._") or "eval"
  return f"{safe}_{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}_{time.time_ns() % 1_000_000:06d}"


def case_status(result: EvalCaseResult) -> str:
  """'passed', 'failed', 'error', 'timeout' or 'not_evaluated' for a case result."""
  if result.error_type == "timeout":
    return "timeout"
  if result.error_type:
    return "error"
  return {EvalStatus.PASSED: "passed", EvalStatus.FAILED: "failed"}.get(result.final_eval_status, "not_evaluated")


class ResultStore:
  """The case results of one eval run in an SQLite file, written one committed row per finished case run.

  Attributes:
    path: the SQLite file.
    run_id: the run's id (its folder's name).
  """

  def __init__(self, path: Union[str, Path]):
    self.path = Path(path)
    self.run_id = self.path.parent.name
    # The event loop thread writes; `check_same_thread=False` lets a reader on another thread (a
    # notebook view, a Ray result callback) share the connection. WAL lets other processes read
    # partial results while the run writes, and a commit survives the process being killed.
    self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
    self._db.execute("PRAGMA journal_mode=WAL")
    self._db.execute("PRAGMA synchronous=NORMAL")
    self._db.executescript(_SCHEMA)
    self._writer: Optional[_Writer] = None

  # ---- opening -----------------------------------------------------------------------------

  @classmethod
  def create(cls, run_id: str, meta: dict[str, Any], root: Union[str, Path, None] = None) -> "ResultStore":
    """A new, empty run folder `root/run_id/` with its description (`meta`)."""
    folder = Path(root) if root is not None else default_root()
    run_dir = folder / run_id
    if (run_dir / STORE_FILE).exists():
      raise FileExistsError(f"An eval run {run_id!r} already exists in {folder}; pick another run_id or resume=True.")
    run_dir.mkdir(parents=True, exist_ok=True)
    store = cls(run_dir / STORE_FILE)
    store.set_meta(**meta, created=time.time(), finished=None)
    return store

  @classmethod
  def open(cls, run: Union[str, Path], root: Union[str, Path, None] = None) -> "ResultStore":
    """An existing run: its folder, its SQLite file, or its run id under `root`."""
    target = Path(run)
    candidates = [target / STORE_FILE, target] if target.suffix != ".sqlite" else [target]
    candidates.append((Path(root) if root is not None else default_root()) / str(run) / STORE_FILE)
    for path in candidates:
      if path.is_file():
        return cls(path)
    raise FileNotFoundError(f"No eval run {str(run)!r}: give a run id under {root or default_root()}, a run folder, "
                            f"or its {STORE_FILE}; see list_runs() for the runs there.")

  def close(self) -> None:
    """Writes what is pending and closes the file (the results stay on disk)."""
    self.flush()
    self._db.close()

  # ---- description -------------------------------------------------------------------------

  @property
  def meta(self) -> dict[str, Any]:
    """What the run is: eval set id, metrics and thresholds, case fingerprint, times."""
    return {k: json.loads(v) for k, v in self._db.execute("SELECT key, value FROM meta")}

  def set_meta(self, **values: Any) -> None:
    """Records (or replaces) description entries."""
    with self._db:
      self._db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                           [(k, json.dumps(v)) for k, v in values.items()])

  # ---- writing -----------------------------------------------------------------------------

  @staticmethod
  def _rows(result: EvalCaseResult, idx: int) -> tuple[tuple, list[tuple]]:
    text = result.model_dump_json(exclude={"session_details"}, exclude_none=True)
    key = (result.run, result.eval_id)
    scores = [(*key, m.metric_name, m.score, m.eval_status.value) for m in result.overall_eval_metric_results]
    return (*key, idx, case_status(result), time.time(), text), scores

  @staticmethod
  def _write(db: sqlite3.Connection, batch: list[tuple[tuple, list[tuple]]]) -> None:
    db.execute("BEGIN")
    try:
      for row, scores in batch:
        db.execute("DELETE FROM metric_scores WHERE run = ? AND eval_id = ?", row[:2])
        db.execute("INSERT OR REPLACE INTO case_results (run, eval_id, idx, status, finished, result) "
                   "VALUES (?, ?, ?, ?, ?, ?)", row)
        db.executemany("INSERT OR REPLACE INTO metric_scores (run, eval_id, metric, score, eval_status) "
                       "VALUES (?, ?, ?, ?, ?)", scores)
      db.execute("COMMIT")
    except BaseException:
      db.execute("ROLLBACK")
      raise

  def add(self, result: EvalCaseResult, idx: int) -> None:
    """Commits one finished case run (replacing an earlier row of the same case and run)."""
    self._write(self._db, [self._rows(result, idx)])

  async def put(self, result: EvalCaseResult, idx: int) -> None:
    """Commits one finished case run from a writer thread; returns once it is on disk.

    The event loop never waits on the file, and case runs that finish together share one transaction.
    """
    if self._writer is None:
      self._writer = _Writer(self.path)
    future = asyncio.get_running_loop().create_future()
    self._writer.queue.put((self._rows(result, idx), future))
    await future

  def flush(self) -> None:
    """Waits until every result handed to `put` is written, and stops the writer thread."""
    if self._writer is not None:
      self._writer.stop()
      self._writer = None

  # ---- reading -----------------------------------------------------------------------------

  def __len__(self) -> int:
    return self._db.execute("SELECT COUNT(*) FROM case_results").fetchone()[0]

  def done(self) -> set[tuple[int, str]]:
    """(run, eval_id) of every finished case run."""
    return {(run, eval_id) for run, eval_id in self._db.execute("SELECT run, eval_id FROM case_results")}

  def counts(self) -> dict[str, int]:
    """How many case runs passed, failed, errored, timed out, were not evaluated."""
    out = {"passed": 0, "failed": 0, "error": 0, "timeout": 0, "not_evaluated": 0}
    for status, n in self._db.execute("SELECT status, COUNT(*) FROM case_results GROUP BY status"):
      out[status] = n
    return out

  def metric_means(self) -> dict[str, Optional[float]]:
    """Mean case-level score per metric (None when no case produced one)."""
    return dict(self._db.execute("SELECT metric, AVG(score) FROM metric_scores GROUP BY metric"))

  def texts(self, limit: int = -1, offset: int = 0) -> Iterator[str]:
    """The stored EvalCaseResult JSON, ordered by run then case, fetched in pages."""
    cursor = self._db.execute("SELECT result FROM case_results ORDER BY run, idx LIMIT ? OFFSET ?", (limit, offset))
    while True:
      page = cursor.fetchmany(256)
      if not page:
        return
      for (text,) in page:
        yield text


class _Writer(threading.Thread):
  """Owns a second connection and commits queued results, all that are waiting in one transaction."""

  def __init__(self, path: Path):
    super().__init__(name="adk_nb-eval-results", daemon=True)
    self.path = path
    self.queue: queue.SimpleQueue = queue.SimpleQueue()
    self.start()

  def run(self) -> None:
    db = sqlite3.connect(self.path, isolation_level=None)
    db.execute("PRAGMA synchronous=NORMAL")
    try:
      stopping = False
      while not stopping:
        items = [self.queue.get()]
        while True:
          try:
            items.append(self.queue.get_nowait())
          except queue.Empty:
            break
        stopping = None in items
        items = [item for item in items if item is not None]
        if not items:
          continue
        error: Optional[BaseException] = None
        try:
          ResultStore._write(db, [rows for rows, _ in items])
        except BaseException as exc:  # handed to every waiting caller
          error = exc
        for _, future in items:
          future.get_loop().call_soon_threadsafe(_settle, future, error)
    finally:
      db.close()

  def stop(self) -> None:
    self.queue.put(None)
    self.join()


def _settle(future: asyncio.Future, error: Optional[BaseException]) -> None:
  if future.done():  # the awaiting case run was cancelled
    return
  if error is None:
    future.set_result(None)
  else:
    future.set_exception(error)


def list_runs(root: Union[str, Path, None] = None) -> list[dict[str, Any]]:
  """Every stored run under `root` (default `.adk_nb/eval`), oldest first: run id, eval set, cases, finished."""
  folder = Path(root) if root is not None else default_root()
  runs = []
  for path in sorted(folder.glob(f"*/{STORE_FILE}")):
    store = ResultStore(path)
    try:
      meta = store.meta
      runs.append({"run_id": store.run_id, "path": str(path.parent), "eval_set_id": meta.get("eval_set_id"),
                   "case_runs": len(store), "planned": meta.get("planned"), "created": meta.get("created"),
                   "finished": meta.get("finished")})
    finally:
      store.close()
  return sorted(runs, key=lambda r: r["created"] or 0)
