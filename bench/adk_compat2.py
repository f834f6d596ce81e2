"""Measure how much of google-adk's own 2.x test selection runs on adk_nb (issue 26's yardstick).

Not run in CI. Google's 2.x tests (fork AmaadMartin/adk-python, version 2.5.0) are taken from a directory
fetched elsewhere; a scratch copy is made per framework (for adk_nb, `google.adk` is rewritten to `adk_nb`)
and the same files run on both:

  python bench/adk_compat2.py --adk-src /work/ref/adk-2x --nb-src /work/wt/adk2

The selection: tests/unittests/workflow/** (every test_*.py), agents/llm/task/test_finish_task_tool.py,
agents/test_context.py, events/test_*.py, tools/test_request_input_tool.py, runners/test_runner_node.py;
skills (skills/test_*.py, tools/test_skill_toolset.py, tools/test_skill_path_traversal.py,
integrations/skill_registry/), environments (tools/environment/, tools/test_local_environment.py,
tools/test_environment_toolset.py, integrations/daytona/, integrations/e2b/; computer use: tools/computer_use/,
integrations/vmaas/) and
plugins/test_debug_logging_plugin.py.

The only shim, applied identically on both sides (a conftest.py at the root of each copy): the private
helpers google-adk 2.13 removed from `workflow.utils._workflow_hitl_utils` (has_auth_request_function_call,
has_request_input_function_call, get_request_input_interrupt_ids, REQUEST_CREDENTIAL_FUNCTION_CALL_NAME)
are put back on that module when it imports and lacks them. When the module itself is missing nothing is
created: that is a real gap of the framework under test.

Only items that pass on google-adk count; those in WORDING_ITEMS (they only pin google-adk's wording of
prose the model reads, or the source text of a program it generates, which adk_nb words and writes itself)
are counted apart. google-adk's results are cached in --work per
test file (keyed on the file's contents, the shared test helpers, the shim and the google-adk interpreter), so a
re-run only runs adk_nb, and a selection that grows runs google-adk on the new files only (earlier whole-selection
caches, google-adk-results-<key>.json, are taken in when their key still matches the sources); --refresh-adk
runs google-adk on every selected file again.
Per area the table shows both pass counts, and the rate among the items that reach a behaviour check
(those whose adk_nb outcome is a pass or a behaviour failure, not an import/name/signature gap).
Each adk_nb failure is put down to its first blocker (see adk_compat.classify), counted once per item.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import adk_compat  # noqa: E402  (the 1.x measure: copy, rewrite, run, classify)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_ADK_SRC = '/work/ref/adk-2x'

SELECTION_GLOBS = [
    'workflow/**/test_*.py',
    'agents/llm/task/test_finish_task_tool.py',
    'agents/test_context.py',
    'events/test_*.py',
    'tools/test_request_input_tool.py',
    'runners/test_runner_node.py',
    # skills
    'skills/test_*.py',
    'tools/test_skill_toolset.py',
    'tools/test_skill_path_traversal.py',
    'integrations/skill_registry/test_*.py',
    # environments
    'tools/environment/test_*.py',
    'tools/test_local_environment.py',
    'tools/test_environment_toolset.py',
    'integrations/daytona/test_*.py',
    'integrations/e2b/test_*.py',
    'tools/computer_use/test_*.py',
    'integrations/vmaas/test_*.py',
    'plugins/test_debug_logging_plugin.py',
]

# Items that only assert google-adk's wording of prose the model reads (tool descriptions, instructions,
# error messages) or the source text of a program google-adk generates: adk_nb words and writes its own (no
# copied prose or code), so they are counted apart.
WORDING_ITEMS = {
    'agents/llm/task/test_finish_task_tool.py': {
        'TestFinishTaskTool::test_init_without_output_schema',  # the tool description's wording
        'TestFinishTaskTool::test_init_with_output_schema',
        'TestBuildInstruction::test_instruction_content',  # the finish_task instruction's wording
    },
    'tools/test_request_input_tool.py': {
        'TestRequestInputTool::test_init',  # the tool description's wording
        'TestRequestInputTool::test_get_declaration',
        'TestRequestInputTool::test_run_async_missing_mandatory_message_returns_error',
    },
    # Each of these was checked: the item's other assertions (error codes, keys, files left untouched, the
    # fatal escalation, the prefixed tool name) hold on adk_nb; only the quoted sentence differs.
    'tools/environment/test_edit_file_tool.py': {
        'TestEditFileTool::test_edit_file_fails_on_multiple_matches',  # "appears 2 times" (ambiguous edit)
    },
    'tools/environment/test_read_file_tool.py': {
        'test_read_file_with_line_range_treats_shell_payload_as_literal_path',  # the file-not-found message
        'TestReadFileTool::test_read_file_with_line_range_missing_file_returns_error',  # the same message
        'TestReadFileTool::test_read_file_rejects_non_integer_end_line',  # the not-an-integer message
        'TestReadFileTool::test_read_file_rejects_boolean_line_numbers',  # the same message
    },
    'tools/test_environment_toolset.py': {
        'test_default_truncation_limit',  # the length of the note after cut output (google-adk's sentence)
        'test_custom_truncation_limit',
    },
    'tools/test_skill_toolset.py': {
        'test_load_skill_run_async[args1-expected_result1]',  # the skill-not-found message
        'test_load_resource_run_async[args2-expected_result2]',  # the binary-file status sentence
        'test_load_resource_run_async[args3-expected_result3]',
        'test_load_resource_run_async[args5-expected_result5]',  # the skill-not-found message
        'test_load_resource_run_async[args6-expected_result6]',  # the bad-resource-path message
        'test_load_resource_run_async[args7-expected_result7]',  # the missing-argument message
        'test_load_resource_run_async[args8-expected_result8]',
        # the binary file's status sentence (detection is keyed on it) and the text before its bytes
        'test_load_resource_process_llm_request_binary[references/doc.pdf-application/pdf-fake pdf content]',
        'test_load_resource_process_llm_request_binary[assets/image.png-image/png-fake image content]',
        'test_load_resource_first_missing_returns_soft_error',  # the resource-not-found message
        'test_load_resource_repeated_failure_escalates_to_fatal',  # "Do not retry", "failure #2"
        'test_load_resource_different_path_also_escalates_to_fatal',
        'test_execute_script_script_not_found',  # the script-not-found message
        'test_execute_script_repeated_failure_escalates_to_fatal',  # "Do not retry", "failure #2"
        'test_execute_script_different_path_also_escalates_to_fatal',
        'test_execute_script_with_list_args_rejects_others_python',  # the conflicting-arguments message
        'test_execute_script_with_list_args_rejects_others_shell',
        'test_execute_script_execution_error',  # "Failed to execute script ..."
        'test_execute_script_system_exit_caught',  # "exited with code 1"
        'test_system_instruction_marks_load_skill_as_non_terminal',  # the instruction's rule 7 wording
        'test_prefixed_system_instruction_includes_continue_after_load_rule',
        # Not prose but the text of google-adk's generated wrapper program, which adk_nb writes itself (these
        # items pass on adk_nb with the source-text assertions removed):
        'test_build_wrapper_code_with_unicode',  # "encoding='utf-8' if mode == 'w' else None"
        'test_execute_script_binary_content_packaged',  # "'wb' if isinstance(content, bytes)"
    },
    'tools/test_skill_path_traversal.py': {
        # "normpath" in the generated program; adk_nb's program refuses the same paths (PermissionError)
        'TestBuildWrapperCodePathTraversal::test_execute_with_traversal_paths_raises',
    },
}

# The test-side shim. It names no framework: the package is found from the copy it sits in.
SHIM_CONFTEST = '''
"""Test-side shim for the 2.x selection (bench/adk_compat2.py); identical for both frameworks."""
import importlib

PKG = {pkg!r}
NAME_INPUT = 'adk_request_input'
NAME_CREDENTIAL = 'adk_request_credential'


def _calls(event):
  content = getattr(event, 'content', None)
  return [p.function_call for p in (content.parts or [])
          if p.function_call] if content is not None and content.parts else []


def has_request_input_function_call(event):
  return any(c.name == NAME_INPUT for c in _calls(event))


def has_auth_request_function_call(event):
  return any(c.name == NAME_CREDENTIAL for c in _calls(event))


def get_request_input_interrupt_ids(event):
  return [c.id for c in _calls(event) if c.name == NAME_INPUT]


try:
  _module = importlib.import_module(PKG + '.workflow.utils._workflow_hitl_utils')
except Exception:  # the module is absent: a gap of the framework, not the shim's to fill
  _module = None
if _module is not None:
  for _name, _value in (('has_request_input_function_call', has_request_input_function_call),
                        ('has_auth_request_function_call', has_auth_request_function_call),
                        ('get_request_input_interrupt_ids', get_request_input_interrupt_ids),
                        ('REQUEST_CREDENTIAL_FUNCTION_CALL_NAME', NAME_CREDENTIAL)):
    if not hasattr(_module, _name):
      setattr(_module, _name, _value)
'''


def select(src: Path, patterns: list[str] | None) -> list[str]:
  import re
  files = set()
  for glob in SELECTION_GLOBS:
    files.update(str(p.relative_to(src)) for p in src.glob(glob) if p.is_file())
  files = sorted(files)
  if patterns:
    files = [f for f in files if any(re.search(p, f) for p in patterns)]
  return files


def area_of(rel: str) -> str:
  parts = rel.split('/')
  if parts[0] == 'workflow':
    return 'workflow/utils' if parts[1] == 'utils' else 'workflow'
  return '/'.join(parts[:-1]) if len(parts) > 1 else '.'


def prepare(src: Path, root: Path, rewrite_imports: bool, pkg: str) -> None:
  adk_compat.copy_tree(src, root / 'tests' / 'unittests', rewrite_imports)
  (root / 'tests' / '__init__.py').write_text('')
  (root / 'pytest.ini').write_text(adk_compat.PYTEST_INI)
  (root / 'conftest.py').write_text(SHIM_CONFTEST.format(pkg=pkg))


HELPERS = ['conftest.py', 'testing_utils.py', 'workflow/workflow_testing_utils.py', 'workflow/testing_utils.py']


def cache_key(src: Path, files: list[str], adk_python: str) -> str:
  """The key of a cache over `files` (the whole-selection caches of earlier versions are named by it)."""
  h = hashlib.sha256(adk_python.encode())
  for rel in sorted(files) + HELPERS:
    path = src / rel
    if path.exists():
      h.update(rel.encode() + path.read_bytes())
  h.update(SHIM_CONFTEST.encode())
  return h.hexdigest()[:16]


def file_key(src: Path, rel: str, adk_python: str) -> str:
  """One test file's key: google-adk's result for it holds while this is unchanged."""
  return cache_key(src, [rel], adk_python)


FILE_CACHE = 'google-adk-file-results.json'


def load_file_cache(work: Path, src: Path, adk_python: str) -> dict:
  """{file key: results} from --work, with earlier whole-selection caches whose key still matches taken in."""
  path = work / FILE_CACHE
  cached = json.loads(path.read_text()) if path.exists() else {}
  for legacy in sorted(work.glob('google-adk-results-*.json')):
    try:
      data = json.loads(legacy.read_text())
    except (OSError, ValueError):
      continue
    files = sorted(data)
    if legacy.stem.removeprefix('google-adk-results-') != cache_key(src, files, adk_python):
      continue  # written from other sources or another interpreter: not valid for these
    for rel in files:
      cached.setdefault(file_key(src, rel, adk_python), data[rel])
  return cached


def measure(args, work: Path) -> dict:
  src = Path(args.adk_src) / 'tests' / 'unittests'
  files = select(src, args.files)
  base_env = {'ADK_NB_BLOCK_REAL_MODELS': '1', 'LITELLM_LOCAL_MODEL_COST_MAP': 'True',
              'PYTHONDONTWRITEBYTECODE': '1'}
  results = {'google-adk': {}}
  cached = load_file_cache(work, src, args.adk_python)
  keys = {rel: file_key(src, rel, args.adk_python) for rel in files}
  missing = [rel for rel in files if args.refresh_adk or keys[rel] not in cached]
  if missing:
    root = work / 'google-adk'
    prepare(src, root, False, 'google.adk')
    env = adk_compat.ensure_plugins(args.adk_python, work, 'adk')
    env.update(base_env)
    print(f'google-adk: running {len(missing)} files ({len(files) - len(missing)} cached) ...', file=sys.stderr)
    ran = adk_compat.run_tests(args.adk_python, root, missing, env, args.timeout)
    for rel in missing:
      cached[keys[rel]] = ran.get(rel, {})
  else:
    print(f'google-adk: cached results for all {len(files)} files ({work / FILE_CACHE})', file=sys.stderr)
  # Written every time: results taken in from an earlier whole-selection cache stay when that cache's key
  # stops matching (one of its files changed).
  (work / FILE_CACHE).write_text(json.dumps(cached))
  for rel in files:
    results['google-adk'][rel] = cached[keys[rel]]
  root = work / 'adk_nb'
  prepare(src, root, True, 'adk_nb')
  env = adk_compat.ensure_plugins(args.nb_python, work, 'nb')
  env.update(base_env)
  nb_src = str(Path(args.nb_src).resolve())
  env['PYTHONPATH'] = nb_src + os.pathsep + env.get('PYTHONPATH', '')
  print(f'adk_nb ({nb_src}): running {len(files)} files ...', file=sys.stderr)
  results['adk_nb'] = adk_compat.run_tests(args.nb_python, root, files, env, args.timeout)
  # JSON round trip so both sides have the same shape (tuples become lists)
  results = json.loads(json.dumps(results))
  return {'files': files, 'results': results, 'adk_modules': adk_compat.adk_module_paths(args.adk_python)}


def summarise(data: dict) -> dict:
  areas = collections.OrderedDict()
  rows = []
  causes, examples = collections.Counter(), {}
  wording_total = [0, 0]  # items counted apart, of those passing on adk_nb
  for rel in data['files']:
    ref = data['results']['google-adk'].get(rel, {})
    got = data['results']['adk_nb'].get(rel, {})
    items = [k for k in ref if k != '<file>']
    wording = WORDING_ITEMS.get(rel, set())
    for key in sorted(wording - set(items)):
      print(f'WORDING_ITEMS names {rel}::{key}, which google-adk did not report: check the spelling',
            file=sys.stderr)
    passing = [k for k in items if ref[k][0] == 'passed' and k not in wording]
    apart = [k for k in items if ref[k][0] == 'passed' and k in wording]
    wording_total[0] += len(apart)
    wording_total[1] += sum(got.get(k, (None,))[0] == 'passed' for k in apart)
    file_error = got.get('<file>')
    ok = reached = 0
    for key in passing:
      outcome, message = got.get(key, (None, ''))
      if outcome == 'passed':
        ok += 1
        reached += 1
        continue
      if outcome is None:
        message = file_error[1] if file_error else 'the test does not exist on adk_nb (collection differs)'
      cause = adk_compat.classify(message, frozenset(data.get('adk_modules', ())))
      if cause[0] == 'behaviour':
        reached += 1
      causes[cause] += 1
      examples.setdefault(cause, f'{rel}::{key}')
    imported = file_error is None or any(k != '<file>' for k in got)
    rows.append((rel, len(items), len(passing), ok, reached, imported))
    a = areas.setdefault(area_of(rel), [0, 0, 0, 0, 0, 0])
    for i, v in enumerate((1, len(items), len(passing), ok, reached, 0 if imported else 1)):
      a[i] += v
  return {'rows': rows, 'areas': areas, 'causes': causes, 'examples': examples, 'wording': wording_total}


def pct(a: int, b: int) -> str:
  return f'{100 * a / b:.1f}%' if b else '-'


def report(summary: dict, out, per_file: bool, limit: int) -> None:
  print('## Google 2.x tests: pass rates per area (items that pass on google-adk 2.13 count)\n', file=out)
  print('| area | files (not importing on adk_nb) | items | pass on google-adk | pass on adk_nb | rate '
        '| reach a behaviour check | rate among those |', file=out)
  print('|---|---:|---:|---:|---:|---:|---:|---:|', file=out)
  total = [0] * 6
  for area, (nfiles, items, ref, ok, reached, unimported) in summary['areas'].items():
    print(f'| {area} | {nfiles} ({unimported}) | {items} | {ref} | {ok} | {pct(ok, ref)} | {reached} '
          f'| {pct(ok, reached)} |', file=out)
    for i, v in enumerate((nfiles, items, ref, ok, reached, unimported)):
      total[i] += v
  nfiles, items, ref, ok, reached, unimported = total
  print(f'| **total** | {nfiles} ({unimported}) | {items} | {ref} | **{ok}** | **{pct(ok, ref)}** | {reached} '
        f'| {pct(ok, reached)} |', file=out)
  apart, apart_ok = summary['wording']
  print(f'\nCounted apart (they pin google-adk\'s wording of model-facing prose or generated code; WORDING_ITEMS): {apart} items '
        f'passing on google-adk, {apart_ok} of them on adk_nb.', file=out)
  if per_file:
    print('\n| test file | items | pass on google-adk | pass on adk_nb | rate |', file=out)
    print('|---|---:|---:|---:|---:|', file=out)
    for rel, items, ref, ok, reached, imported in summary['rows']:
      note = '' if imported else ' (does not import)'
      print(f'| {rel}{note} | {items} | {ref} | {ok} | {pct(ok, ref)} |', file=out)
  print('\n## First blockers of the adk_nb failures (each item counted once)\n', file=out)
  adk_compat.print_causes({'causes': summary['causes'], 'examples': summary['examples']}, out, limit)


def main() -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--adk-src', default=DEFAULT_ADK_SRC,
                      help='a checkout of the 2.x adk-python tree (its tests/unittests are run)')
  parser.add_argument('--nb-src', default=str(REPO),
                      help='the adk_nb checkout under test (put first on PYTHONPATH); default: this one')
  parser.add_argument('--adk-python', default=os.environ.get('ADK_NB_BENCH_ADK_PYTHON',
                                                             str(adk_compat.DEFAULT_ADK_PYTHON)))
  parser.add_argument('--nb-python', default=str(adk_compat.DEFAULT_NB_PYTHON)
                      if adk_compat.DEFAULT_NB_PYTHON.exists() else '/work/main/.venv/bin/python',
                      help="an interpreter with adk_nb's dependencies (adk_nb itself comes from --nb-src)")
  parser.add_argument('--work', default=os.path.join(tempfile.gettempdir(), 'adk_compat2'),
                      help='scratch folder for the copies and the google-adk cache (outside the repository)')
  parser.add_argument('--files', nargs='*', help='only test files matching these regular expressions')
  parser.add_argument('--timeout', type=int, default=60, help='seconds per test item')
  parser.add_argument('--refresh-adk', action='store_true', help='run google-adk again instead of the cache')
  parser.add_argument('--per-file', action='store_true', help='also print the per-file table')
  parser.add_argument('--report', help='also write the tables and all blockers (Markdown) here')
  parser.add_argument('--json', help='write the raw results here')
  args = parser.parse_args()
  work = Path(args.work).resolve()
  if REPO in work.parents or work == REPO or Path(args.nb_src).resolve() in work.parents:
    parser.error('--work must be outside the repository: never write Google code into it')
  work.mkdir(parents=True, exist_ok=True)
  data = measure(args, work)
  summary = summarise(data)
  report(summary, sys.stdout, args.per_file, 40)
  if args.report:
    with open(args.report, 'w') as out:
      report(summary, out, True, 400)
  if args.json:
    data.pop('adk_modules', None)
    Path(args.json).write_text(json.dumps(data, indent=1))
  return 0


if __name__ == '__main__':
  sys.exit(main())
