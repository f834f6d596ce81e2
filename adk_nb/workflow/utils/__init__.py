"""Helpers of the workflow runtime at google-adk 2.x's module paths (`workflow.utils._*`).

- `_workflow_hitl_utils`: the `adk_request_input` call a RequestInput becomes, and its answer;
- `_workflow_graph_utils`: what can be a node, and the node a node-like stands for;
- `_retry_utils`: whether a failed node run is retried, and after how long.
"""
