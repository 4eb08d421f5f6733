"""modelcalc from Python: every command as a function returning its JSON as dicts.

    import modelcalc
    r = modelcalc.size(model="llama-3.1-8b", gpu="h100", seq=8192, batch=32)
    r["decode"]["tokens_per_s_aggregate"]          # the CLI's --json, key for key
    rows = modelcalc.sweep(model=["llama-3.1-8b", "mixtral-8x7b-v0.1"], gpu="h100", batch="1:64")
    print(modelcalc.text("size", model="llama-3.1-8b", gpu="h100", explain=True))

Keyword arguments are the command's flags (`modelcalc <command> --help`, or help(modelcalc.<command>)):
an underscore stands for a hyphen (kv_heads= is --kv-heads), a one-letter name is a short flag (L= is -L),
True gives a bare flag (glu=True is --glu), False and None leave the flag out, and a list or tuple is a
comma list (gpu=["h100", "mi300x"]). Values are passed as the CLI reads them, so "70B", "8K" and "1:1024"
work as they do on the command line.

The module is a front end only: each call runs the same code as the `modelcalc` executable, in process
(the native `_modelcalc.run`), so a figure here is the CLI's figure. Bad input raises InputError with the
CLI's one-line message naming the flag; nothing is approximated or defaulted silently.
"""

import json as _json

from . import _modelcalc

__all__ = ["InputError", "run", "text", "commands"]


class InputError(ValueError):
    """Bad input: the CLI's one-line message (exit status 2), naming the flag and what is allowed."""


def run(args):
    """Runs modelcalc with a list of arguments, as the shell would pass them.

    Returns (status, stdout, stderr): status 0 on success, 2 for bad input, 1 otherwise.
    """
    return _modelcalc.run([str(a) for a in args])


def _value(v):
    if isinstance(v, (list, tuple)):
        return ",".join(_value(x) for x in v)
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))  # 7e10 -> "70000000000": the CLI's whole counts take no ".0"
    return str(v)


def _flags(kwargs):
    args = []
    for key, v in kwargs.items():
        if v is None or v is False:
            continue
        flag = "-" + key if len(key) == 1 else "--" + key.replace("_", "-")
        args.append(flag)
        if v is not True:
            args.append(_value(v))
    return args


def _call(args):
    status, out, err = _modelcalc.run(args)
    if status == 2:
        raise InputError(err.strip().removeprefix("modelcalc: error: "))
    # plan exits 1 when nothing meets the targets and still prints its answer (the closest misses).
    if status != 0 and not out:
        raise RuntimeError(err.strip() or f"modelcalc exited with status {status}")
    return out


# `serve` runs until killed: a web server is no function call (start `modelcalc serve` from a shell).
_NOT_CALLABLE = {"serve"}


def text(command, **kwargs):
    """The command's text output (the report a terminal shows; explain=True adds every formula)."""
    if command in _NOT_CALLABLE:
        raise InputError(f"{command}: runs until killed; start `modelcalc {command}` from a shell")
    return _call([command] + _flags(kwargs))


def _structured(command):
    structured_flag = ["--format", "json"] if command == "sweep" else ["--json"]

    def call(**kwargs):
        for reserved in ("json", "format"):
            if reserved in kwargs:
                raise TypeError(f"{reserved}= is chosen by modelcalc.{command.replace('-', '_')}(); "
                                f"use modelcalc.text({command!r}, ...) for another output")
        return _json.loads(_call([command] + _flags(kwargs) + structured_flag))

    return call


def commands():
    """Every command as (name, summary), in the order `modelcalc --help` lists them (serve included: it has
    no function, see text())."""
    return list(_modelcalc.commands())


for _name, _summary in _modelcalc.commands():
    if _name in _NOT_CALLABLE:
        continue
    _fn = _structured(_name)
    _fn.__name__ = _fn.__qualname__ = _name.replace("-", "_")
    _fn.__doc__ = (f"{_summary}.\n\nReturns `modelcalc {_name} ... "
                   f"{'--format json' if _name == 'sweep' else '--json'}` as dicts and lists; the flags:\n\n"
                   + _modelcalc.run([_name, "--help"])[1])
    globals()[_fn.__name__] = _fn
    __all__.append(_fn.__name__)

__version__ = _modelcalc.run(["--version"])[1].split()[-1]
del _name, _summary, _fn
