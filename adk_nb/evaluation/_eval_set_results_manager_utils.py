"""google-adk's private helper module for eval set results, at its path (its tests and tools import it).

The helpers themselves live in `eval_set_results_manager`; these are google-adk's names for them.
"""

from __future__ import annotations

from .eval_set_results_manager import new_eval_set_result, parse_eval_set_result, result_file_name

_sanitize_eval_set_result_name = result_file_name
create_eval_set_result = new_eval_set_result
parse_eval_set_result_json = parse_eval_set_result
