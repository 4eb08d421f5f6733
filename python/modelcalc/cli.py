"""The CLI itself, in process: any command by its flags, returning its --json as dicts.

    from modelcalc import cli
    cli.roofline(model="llama-3.1-8b", gpu="h100", batch="1,8,64")     # `roofline ... --json` as dicts
    cli.text("size", model="llama-3.1-8b", gpu="h100", explain=True)    # the text a terminal shows
    cli.run(["train", "--params", "70B", "--tokens", "2T"])             # (status, stdout, stderr)

Keyword arguments are the command's flags (`modelcalc <command> --help`): an underscore stands for a hyphen
(kv_heads= is --kv-heads), a one-letter name is a short flag (L= is -L), True gives a bare flag, False and None
leave it out, and a list or tuple is a comma list. Values are passed as the CLI reads them ("70B", "8K", "1:64").

This is the way to the commands that have no direct binding (roofline, train-memory, paged-kv, train,
chinchilla, cost, mfu, tradeoff, example, exercises, calibrate, gpus, models). The direct bindings
(modelcalc.size, plan, ...) run the same analyses without a command line, with real signatures and typed
results; their to_dict() equals what these functions return for the same flags.
"""

import json as _json

from . import _modelcalc

__all__ = ["run", "text", "commands"]

InputError = _modelcalc.InputError


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
                raise TypeError(f"{reserved}= is chosen by modelcalc.cli.{command.replace('-', '_')}(); "
                                f"use modelcalc.cli.text({command!r}, ...) for another output")
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

del _name, _summary, _fn
