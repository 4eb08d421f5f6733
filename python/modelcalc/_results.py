"""Result objects: attribute access over a command's document, and sweep's columns.

A command's result (SizeResult, PlanResult, ...) is a native object holding what the analyses computed. Its
to_dict() is the CLI's --json document for the same call; its sections are attributes (r.params.total,
r.decode_step.seconds) and items (r["params"]["total"]), read from one cached conversion of that document.
"""

__all__ = ["Doc", "Columns", "attach_document_access"]


class Doc(dict):
    """A section of a document: a dict whose keys are also attributes (nested sections too)."""

    __slots__ = ()

    def __getattr__(self, name):
        try:
            return wrap(self[name])
        except KeyError:
            raise AttributeError(f"no key {name!r} here; keys: {', '.join(self)}") from None

    def __getitem__(self, key):
        return wrap(dict.__getitem__(self, key))

    def __dir__(self):
        return list(self)

    def to_dict(self):
        """The section as plain dicts and lists (a copy)."""
        return _plain(self)


def wrap(v):
    if isinstance(v, dict) and not isinstance(v, Doc):
        return Doc(v)
    if isinstance(v, list):
        return [wrap(x) for x in v]
    return v


def _plain(v):
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def attach_document_access(cls):
    """Gives a native result class attribute and item access to its document's sections."""

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        doc = self._doc()
        if name in doc:
            return wrap(doc[name])
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}; its document's sections: "
                             f"{', '.join(doc)}")

    def __getitem__(self, key):
        return wrap(self._doc()[key])

    def __contains__(self, key):
        return key in self._doc()

    def keys(self):
        """The document's top-level keys (to_dict().keys())."""
        return self._doc().keys()

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(self._doc()))

    def __repr__(self):
        return f"<modelcalc.{type(self).__name__}: {', '.join(self._doc())}>"

    cls.__getattr__ = __getattr__
    cls.__getitem__ = __getitem__
    cls.__contains__ = __contains__
    cls.keys = keys
    cls.__dir__ = __dir__
    cls.__repr__ = __repr__
    return cls


try:
    import numpy as _np
except ImportError:  # columns are then memoryviews, text columns lists
    _np = None

_NP_DTYPES = {"int": "int64", "real": "float64", "flag": "bool", "text": "uint16"}


class Columns:
    """A sweep's rows as columns: one typed array per column (NumPy when installed, else a memoryview).

    cols["weight_bytes"] or cols.weight_bytes is an int64 array, cols.tokens_per_s_aggregate a float64 one,
    cols.fits a bool one; a text column (model, gpu, dtype, kv_dtype, regime, ...) is held as 2-byte codes
    into its labels (cols.codes("model"), cols.labels("model")), and cols["model"] gives the strings.
    to_pandas() makes a DataFrame (text columns as categoricals), to_rows() the CLI's JSON rows.
    """

    def __init__(self, raw):
        self._cols = {}
        self._rows = 0
        for name, kind, buf, labels in raw:
            self._cols[name] = (kind, buf, labels)
            self._rows = len(buf)

    def __len__(self):
        return self._rows

    def keys(self):
        """Column names, in the order the rows were asked for (fields=)."""
        return list(self._cols)

    def kind(self, name):
        """'int', 'real', 'flag' or 'text'."""
        return self._column(name)[0]

    def _column(self, name):
        try:
            return self._cols[name]
        except KeyError:
            raise KeyError(f"no column {name!r}; columns: {', '.join(self._cols)}") from None

    def _array(self, kind, buf):
        if _np is not None:
            return _np.frombuffer(buf, dtype=_NP_DTYPES[kind])
        return memoryview(buf)

    def codes(self, name):
        """A text column's codes (indexes into labels(name)); a number column's values."""
        kind, buf, _ = self._column(name)
        return self._array(kind, buf)

    def labels(self, name):
        """A text column's distinct values; None for a number column."""
        return self._column(name)[2]

    def __getitem__(self, name):
        kind, buf, labels = self._column(name)
        if kind != "text":
            return self._array(kind, buf)
        if _np is not None:
            return _np.asarray(labels, dtype=object)[self._array(kind, buf)]
        return [labels[c] for c in memoryview(buf)]

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(str(e)) from None

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(self._cols))

    @property
    def nbytes(self):
        """Bytes the columns hold (rows x the item sizes)."""
        return sum(buf.nbytes for _, buf, _ in self._cols.values())

    def to_pandas(self):
        """A pandas DataFrame of the columns (text columns as categoricals, no copy of the strings)."""
        import pandas as pd

        data = {}
        for name, (kind, buf, labels) in self._cols.items():
            codes = _np.frombuffer(buf, dtype=_NP_DTYPES[kind])
            if kind == "text":
                data[name] = pd.Categorical.from_codes(codes.astype("int32"), categories=labels)
            else:
                data[name] = codes
        return pd.DataFrame(data)

    def to_rows(self):
        """The rows as dicts: `modelcalc sweep --format json` for the same lists and fields."""
        cols = []
        for name, (kind, buf, labels) in self._cols.items():
            values = memoryview(buf).tolist()
            if kind == "text":
                values = [labels[c] for c in values]
            elif kind == "flag":
                values = [bool(v) for v in values]
            cols.append((name, values))
        return [{name: values[i] for name, values in cols} for i in range(self._rows)]

    def __repr__(self):
        return f"<modelcalc.Columns: {self._rows} rows x {len(self._cols)} columns ({', '.join(self._cols)})>"
