#!/usr/bin/env python3
"""Run the composite action (action.yml) on this machine, the way a GitHub runner would: each step's
`run:` under bash with its `env:` and `if:` evaluated, ${{ inputs.* }} / ${{ steps.*.outputs.* }}
substituted, GITHUB_ACTION_PATH the clone, GITHUB_OUTPUT per step, GITHUB_ACTIONS=true. `uses:` steps
(the SARIF upload) cannot run without GitHub: the runner checks the file they would upload instead.

usage: run-action-locally.py [--action-dir DIR] [--workdir DIR]
                             [--readme README.md] [--input NAME=VALUE ...]
  --readme: take the inputs from the README's action example (between action-example markers)
Exits with the action's result: 0 when every step succeeded."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def parse_action(text):
    """The subset of YAML action.yml uses: inputs (name -> default) and runs.steps (maps of scalars,
    `env:`/`with:` maps, `run: |` blocks). Enough for this file; not a general YAML parser."""
    lines = text.splitlines()
    inputs, steps, i = {}, [], 0

    def scalar(v):
        v = v.strip()
        if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
            v = v[1:-1].replace("''", "'") if v[0] == "'" else json.loads(v)
        return v

    def block(i, indent):
        out = []
        while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) >= indent):
            out.append(lines[i][indent:])
            i += 1
        return "\n".join(out).rstrip("\n") + "\n", i

    section, cur_input = None, None
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        ind = len(line) - len(line.lstrip())
        if not s or s.startswith("#"):
            i += 1
            continue
        if ind == 0:
            section = s.rstrip(":").split(":")[0]
            i += 1
            continue
        if section == "inputs":
            if ind == 2:
                cur_input = s.rstrip(":")
                inputs[cur_input] = ""
            elif s.startswith("default:"):
                inputs[cur_input] = scalar(s[len("default:"):])
            i += 1
            continue
        if section == "runs" and s.startswith("- "):
            step, sub, base = {}, None, ind + 2
            lines[i] = " " * base + s[2:]
            while i < len(lines):
                line = lines[i]
                s = line.strip()
                ind = len(line) - len(line.lstrip())
                if s and ind < base:
                    break
                if not s or s.startswith("#") or (s.startswith("- ") and ind == base - 2):
                    if s.startswith("- ") and ind == base - 2:
                        break
                    i += 1
                    continue
                key, _, val = s.partition(":")
                if ind == base:
                    sub = None
                    if key == "run" and val.strip() == "|":
                        step["run"], i = block(i + 1, base + 2)
                        continue
                    if val.strip() == "":
                        sub = step.setdefault(key, {})
                    else:
                        step[key] = scalar(val)
                elif sub is not None:
                    sub[key] = scalar(val)
                i += 1
            steps.append(step)
            continue
        i += 1
    return inputs, steps


def evaluate(expr, ctx):
    """${{ }} expressions: context lookups, == / != against quoted strings, &&, ||, !, always()."""
    def atom(tok):
        tok = tok.strip()
        if tok in ("always()", "success()"):
            return True if tok == "always()" else ctx["ok"]
        if tok.startswith("!"):
            return not truthy(atom(tok[1:]))
        if tok[:1] in "'\"":
            return tok[1:-1]
        if tok in ("true", "false"):
            return tok == "true"
        parts = tok.split(".")
        if parts[0] == "inputs":
            return ctx["inputs"].get(parts[1], "")
        if parts[0] == "steps":
            return ctx["steps"].get(parts[1], {}).get(parts[3], "")
        if parts[0] == "github" and parts[1] == "action_path":
            return ctx["action_path"]
        if parts[0] == "runner" and parts[1] == "temp":
            return ctx["temp"]
        raise SystemExit(f"run-action-locally: unsupported expression {tok!r}")

    def comparison(e):
        for op in ("==", "!="):
            if op in e:
                a, b = e.split(op, 1)
                return (atom(a) == atom(b)) == (op == "==")
        return atom(e)

    def conj(e):
        parts = e.split("&&")
        return all(truthy(comparison(x)) for x in parts) if len(parts) > 1 else comparison(e)

    parts = expr.split("||")
    return any(truthy(conj(x)) for x in parts) if len(parts) > 1 else conj(expr)


def truthy(v):
    return v not in ("", False, None, "false")


def substitute(text, ctx):
    return EXPR.sub(lambda m: str(evaluate(m.group(1), ctx)), text)


def readme_inputs(readme):
    """The `with:` map of the README's action example (its `uses: ./...` step)."""
    block = readme.split("<!-- action-example:begin", 1)[1].split("<!-- action-example:end", 1)[0]
    lines = block.splitlines()
    out, i = {}, 0
    while i < len(lines) and not re.match(r"\s*- uses: \./", lines[i]):  # the step using the local clone
        i += 1
    while i < len(lines) and not lines[i].strip().startswith("with:"):
        i += 1
    ind = None
    for line in lines[i + 1:]:
        if not line.strip() or line.strip().startswith("```"):
            break
        cur = len(line) - len(line.lstrip())
        ind = ind or cur
        if cur < ind:
            break
        if cur == ind:
            k, _, v = line.strip().partition(":")
            out[k], last = v.strip(), k
            if out[k] == "|":
                out[k] = ""
        else:
            out[last] += line.strip() + "\n"
    return {k: v.strip("'\"") if not v.endswith("\n") else v for k, v in out.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--action-dir", default=str(Path(__file__).resolve().parent.parent))
    ap.add_argument("--workdir", default=os.getcwd())
    ap.add_argument("--readme")
    ap.add_argument("--input", action="append", default=[])
    a = ap.parse_args()
    action_dir = Path(a.action_dir).resolve()
    defaults, steps = parse_action((action_dir / "action.yml").read_text())
    given = readme_inputs(Path(a.readme).read_text()) if a.readme else {}
    given.update(dict(kv.split("=", 1) for kv in a.input))
    unknown = set(given) - set(defaults)
    if unknown:
        raise SystemExit(f"run-action-locally: inputs the action does not declare: {sorted(unknown)}")
    temp = tempfile.mkdtemp(prefix="packcheck-action-")
    os.chmod(temp, 0o755)  # a runner's temp folder is readable by others (certify runs readers as nobody)
    ctx = {"inputs": {**defaults, **given}, "steps": {}, "ok": True, "action_path": str(action_dir), "temp": temp}
    for n, step in enumerate(steps):
        name = substitute(step.get("name", f"step {n}"), ctx)
        cond = step.get("if")
        # GitHub's default condition is success(): a step after a failed one runs only with always()
        implicit_success = cond is None or not re.search(r"always\(\)|failure\(\)", cond)
        if (implicit_success and not ctx["ok"]) or (cond is not None and not truthy(evaluate(cond, ctx))):
            print(f"-- {name}: skipped (if: {cond})", flush=True)
            continue
        if "uses" in step:
            with_ = {k: substitute(v, ctx) for k, v in step.get("with", {}).items()}
            f = with_.get("sarif_file")
            if f:
                doc = json.loads((Path(a.workdir) / f).read_text())
                assert doc.get("version") == "2.1.0" and doc.get("runs"), f"{f} is not SARIF 2.1.0"
            print(f"-- {name}: `uses: {step['uses']}` needs GitHub; checked its input {with_}", flush=True)
            continue
        out_file = os.path.join(temp, f"output-{n}")
        open(out_file, "w").close()
        env = dict(os.environ, GITHUB_ACTIONS="true", GITHUB_ACTION_PATH=str(action_dir), GITHUB_OUTPUT=out_file,
                   RUNNER_TEMP=temp, GITHUB_WORKSPACE=os.path.abspath(a.workdir))
        env.update({k: substitute(v, ctx) for k, v in step.get("env", {}).items()})
        print(f"-- {name}", flush=True)
        rc = subprocess.run(["bash", "-e", "-c", substitute(step["run"], ctx)], cwd=a.workdir, env=env).returncode
        outs = {}
        for line in Path(out_file).read_text().splitlines():
            k, _, v = line.partition("=")
            outs[k] = v
        if "id" in step:
            ctx["steps"][step["id"]] = outs
        if rc != 0:
            print(f"-- {name}: failed (exit {rc})", flush=True)
            ctx["ok"] = False
    shutil.rmtree(temp, ignore_errors=True)
    print(f"action {'succeeded' if ctx['ok'] else 'failed'}; step outputs: {json.dumps(ctx['steps'])}")
    sys.exit(0 if ctx["ok"] else 1)


if __name__ == "__main__":
    main()
