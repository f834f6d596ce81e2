"""Helpers of the workflow runtime at google-adk 2.x's module paths (`workflow.utils._*`).

- `_graph_parser`: the edges DSL (chains, fan-outs, routing maps) read into a flat list of Edges;
- `_graph_validation`: the checks a graph passes at construction, each error naming the fix;
- `_workflow_graph_utils`: what can be a node, and the node a node-like stands for (`build_node`);
- `_transfer_utils`: which agent a transfer reaches, and under which node context;
- `_workflow_hitl_utils`: the `adk_request_input` call a RequestInput becomes, and its answer;
- `_retry_utils`: whether a failed node run is retried, and after how long.
"""
