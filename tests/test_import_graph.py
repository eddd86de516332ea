"""No import cycles between the modules of `dashboard`.

The import-linter contracts (`make lint`) keep the layers apart; they cannot see a cycle
inside one layer (a service importing another that imports it back). This builds the
module graph with grimp, the library under import-linter, and looks for one.
"""

from __future__ import annotations

import grimp

EXCLUDED = ("dashboard.migrations",)


def find_cycle(graph: grimp.ImportGraph, modules: set[str]) -> list[str] | None:
    """One import cycle among `modules` as a list of module names, first repeated last."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(module: str) -> list[str] | None:
        path.append(module)
        on_path.add(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module) & modules):
            if imported in on_path:
                return path[path.index(imported) :] + [imported]
            if imported not in done:
                cycle = visit(imported)
                if cycle:
                    return cycle
        path.pop()
        on_path.discard(module)
        done.add(module)
        return None

    for module in sorted(modules):
        if module not in done:
            cycle = visit(module)
            if cycle:
                return cycle
    return None


def dashboard_modules(graph: grimp.ImportGraph) -> set[str]:
    return {
        module
        for module in graph.modules
        if not any(module == prefix or module.startswith(prefix + ".") for prefix in EXCLUDED)
    }


def test_no_import_cycle_between_dashboard_modules():
    graph = grimp.build_graph("dashboard", cache_dir=None)
    modules = dashboard_modules(graph)
    assert "dashboard.services.units" in modules  # the graph is the real one
    assert not any(module.startswith("dashboard.migrations") for module in modules)

    cycle = find_cycle(graph, modules)

    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def graph_of(*imports: str) -> grimp.ImportGraph:
    """A graph of `importer -> imported` lines, for testing `find_cycle` itself."""
    graph = grimp.ImportGraph()
    for line in imports:
        importer, imported = line.split(" -> ")
        graph.add_import(importer=importer, imported=imported)
    return graph


def test_find_cycle_reports_a_cycle():
    graph = graph_of("app.a -> app.b", "app.b -> app.c", "app.c -> app.a", "app.d -> app.a")

    assert find_cycle(graph, set(graph.modules)) == ["app.a", "app.b", "app.c", "app.a"]


def test_find_cycle_accepts_a_diamond():
    graph = graph_of("app.a -> app.b", "app.a -> app.c", "app.b -> app.d", "app.c -> app.d")

    assert find_cycle(graph, set(graph.modules)) is None
