"""What the notebooks show: HTML views, figures, widgets and diagrams.

- `display`: tokens as chips, text with parts marked, tables, a harness trace (HTML).
- `plots`: matplotlib figures in the series' style.
- `widgets`: the ipywidgets interfaces; their logic lives in tested modules elsewhere.
- `diagrams`: sequence diagrams of real runs, in Mermaid.
- `saved_widgets`: static pictures of a notebook's saved widgets.
"""

from kitchen import exports

__getattr__, __all__ = exports(__name__, {
    "kitchen.views.display": ["marked_text", "mask_steps", "table", "token_chips", "trace_view"],
    "kitchen.views.plots": ["accuracy_figure", "bar_figure", "growth_figure", "top_k_figure"],
    "kitchen.views.widgets": ["dashboard", "harness_debugger", "schema_editor", "step_through", "tools_off_on"],
    "kitchen.views.diagrams": ["loop_diagram", "session_diagram"],
})
