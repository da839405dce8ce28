"""The package's modules import one another without a circle at import
time, read from their source so that it holds without torch, numpy or a
build. Only module-level imports count: qmat.torch loads qmat.torch_model
(which builds on QuantLinear) on the first use of load_model or
replace_linear. The bundle's data and compilation (qmat.bundle) never import
its loading (qmat.launcher), not even inside a function."""
import ast
import os

PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "qmat")


def module_name(path):
    relative = os.path.relpath(path, PACKAGE)[:-3].replace(os.sep, ".")
    return relative[:-len(".__init__")] if relative.endswith(".__init__") else relative


def import_nodes(tree, top_level):
    """The import statements of a module: at module level (also inside a
    top-level if or try), or anywhere."""
    if not top_level:
        return list(ast.walk(tree))
    found, pending = [], list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.If, ast.Try)):
            pending += node.body + node.orelse + getattr(node, "finalbody", []) + [
                n for h in getattr(node, "handlers", []) for n in h.body]
        else:
            found.append(node)
    return found


def imports(path, top_level=True):
    """The qmat modules `path` imports."""
    name = module_name(path)
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    found = set()
    for node in import_nodes(ast.parse(open(path).read()), top_level):
        if not isinstance(node, ast.ImportFrom) or node.level == 0:
            continue
        base = package.split(".") if package else []
        base = base[:len(base) - (node.level - 1)] if node.level > 1 else base
        target = ".".join(base + ([node.module] if node.module else []))
        if node.module:
            found.add(target)
        else:
            found.update(".".join(filter(None, [target, a.name])) for a in node.names)
    return {t for t in found if t and t != name}


def graph():
    modules = {}
    for root, _, files in os.walk(PACKAGE):
        for file in files:
            if file.endswith(".py"):
                path = os.path.join(root, file)
                modules[module_name(path)] = imports(path)
    return {m: {t for t in targets if t in modules} for m, targets in modules.items()}


def find_cycle(edges):
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for target in sorted(edges[node]):
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(edges):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_the_graph_is_read():
    edges = graph()
    assert "bundle" in edges["launcher"]
    assert "torch" in edges["torch_model"]
    assert "checkpoint.importer" in edges["torch_model"]
    assert "torch_model" not in edges["torch"]
    assert "torch_model" in imports(os.path.join(PACKAGE, "torch.py"), top_level=False)


def test_bundle_never_imports_its_loading():
    assert "launcher" not in imports(os.path.join(PACKAGE, "bundle.py"), top_level=False)


def test_no_import_circle():
    # A package (`checkpoint`) importing its own modules from __init__ is not
    # a circle unless one of them imports the package back.
    edges = graph()
    assert find_cycle(edges) is None, " -> ".join(find_cycle(edges))


def test_a_circle_is_found():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
