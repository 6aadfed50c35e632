"""Shared by the recurrent-layer tests."""


def op_names(tensor):
    """Type names of every op in the graph that produced `tensor`."""
    seen, todo, names = set(), [tensor._node], set()
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.add(type(node).__name__)
        todo.extend(t._node for t in node.inputs)
    return names
