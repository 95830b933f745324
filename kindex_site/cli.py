"""Command line: `kindex-site build | check | serve | digest | new-run | new | import`. User errors exit 1 with no
traceback; Ctrl-C and SIGTERM stop any command with 128 + the signal's number (130, 143), except
`serve` and `build --watch`, which they stop as they are meant to stop (`Stopped.`, 0)."""

from __future__ import annotations

import argparse
import gc
import os
import signal
import sys
from pathlib import Path
from typing import NoReturn, Protocol

from . import __version__
from .state.reuse import Reuse
from .config import load_config
from .errors import GROUPED_OVER, KindexError, display, plural, summarize, warning_lines
from .publish_swap import sigterm_as_interrupt

# build (jinja2, the models, the renderers) is imported only when there is work to do: a no-op
# build answers from the output folder's Reuse (state/reuse.py, state/files.py) with the standard library and the
# settings alone (tests/test_config.py checks that neither pydantic nor jinja2 is imported then).
SITE_COMMANDS = ("build", "check", "serve")

EXAMPLES = {
    "build": "example:\n  kindex-site build                      # content/ → site/, settings from ./kindex.toml\n"
             "  kindex-site build --content data --out public --base-url https://me.github.io/board/\n"
             "  kindex-site build --watch              # rebuild site/ on every change until Ctrl-C",
    "check": "example:\n  kindex-site check --content content    # validate only; exit 1 on any problem\n"
             "  kindex-site check --strict             # warnings count as problems too\n"
             "  kindex-site check --strict --format github   # in GitHub Actions: problems shown on the diff\n"
             "  kindex-site check --strict --base origin/main # a pull request: what it changes, and whether a maintainer must look",
    "serve": "example:\n  kindex-site serve                      # http://127.0.0.1:8000/, rebuilt on every change\n"
             "  kindex-site serve --port 8001 --base-url /board/",
    "digest": "example:\n  kindex-site digest kernel.py            # sha256:…  kernel.py (a run's implementationDigest)\n"
              "  kindex-site digest --json protocol.json # canonical JSON, as protocolDigest is made",
    "new-run": "example:\n  kindex-site new-run --problem level2-84-gemm-batchnorm-scaling-softmax \\\n"
               "      --host kernelbench-h100-pcie-lambdalabs --implementation 'Fused Triton' --lab 'Example Lab'",
    "new": "example:\n  kindex-site new my-leaderboard         # asks for title, base URL and reference on a terminal\n"
           "  kindex-site new my-leaderboard --title 'Attention kernels' \\\n"
           "      --base-url https://my-lab.github.io/my-leaderboard/ --reference 'PyTorch eager'\n"
           "  cd my-leaderboard && kindex-site serve",
}




def _add_site_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--content", metavar="DIR", help="content folder (default: content_dir in kindex.toml, else content/)")
    parser.add_argument("--config", metavar="FILE", type=Path, help="settings file (default: ./kindex.toml if present)")


def _add_verbose(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--verbose", action="store_true",
                        help=f"say each warning in full (without it, a cause said more than {GROUPED_OVER} times is "
                             "one line: its count and an example), and the notes a local build does without")


class Commands(Protocol):
    """What ArgumentParser.add_subparsers() returns, as far as the commands use it (its class is argparse's own)."""

    def add_parser(self, name: str, **kwargs) -> argparse.ArgumentParser: ...


def make_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser for `argv` (all commands when None). The importer's options are defined by its
    module, which needs the models (pydantic): they are left out when argv runs another command."""
    parser = argparse.ArgumentParser(
        prog="kindex-site",
        description="Build a static GPU-kernel leaderboard from kernelindex.dev/v1alpha1 documents.",
        epilog="example:\n  kindex-site build && python -m http.server -d site\n\n"
               "Run 'kindex-site COMMAND --help' for each command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"kindex-site {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    for add in (_add_build, _add_check, _add_serve, _add_digest, _add_new_run, _add_new):
        add(commands)
    if not (argv and argv[0] in SITE_COMMANDS):
        from .importers import add_import_parser

        add_import_parser(commands)
    return parser


def _add_build(commands: Commands) -> None:
    p = commands.add_parser("build", help="validate content/ and write the site", epilog=EXAMPLES["build"],
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            description="Validate every document under the content folder and write the site.")
    _add_site_options(p)
    p.add_argument("--out", metavar="DIR", help="output folder (default: output_dir in kindex.toml, else site/)")
    p.add_argument("--base-url", metavar="URL", help="URL the site is served from, e.g. https://owner.github.io/repo/")
    p.add_argument("--timings", action="store_true", help="print how long each phase of the build took")
    _add_verbose(p)
    p.add_argument("--clean", action="store_true",
                   help="ignore what the last build left in .kindex-cache/ and make every file anew")
    p.add_argument("--watch", action="store_true",
                   help="stay running and rebuild whenever content, templates, static files or the config "
                        "change (Ctrl-C or SIGTERM stops it); a rebuild redoes only what changed, in memory")
    p.set_defaults(run=_build)


def _add_check(commands: Commands) -> None:
    p = commands.add_parser("check", help="validate content/ without writing anything", epilog=EXAMPLES["check"],
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            description="Validate every document under the content folder; write nothing. A run\n"
                                        "faster than its GPU allows (below its floor: about page, \"Physics\") and not\n"
                                        "reviewed is a problem.")
    _add_site_options(p)
    p.add_argument("--strict", action="store_true",
                   help="treat warnings (unknown fields or statuses, ignored files, symlinks not followed) as errors, "
                        "for a content repository's CI")
    p.add_argument("--format", choices=("text", "github"), default="text",
                   help="text (default): lines on stderr; github: each problem and warning as a GitHub Actions "
                        "annotation on stdout, shown on the pull request's diff at its file and line")
    _add_verbose(p)
    p.add_argument("--base", metavar="REF",
                   help="also compare with the content at git REF (a pull request's base): print what the change "
                        "does to the leaderboard (and write it to $GITHUB_STEP_SUMMARY when set), and fail when it "
                        "changes files outside the content folder, published runs, a table's reference, a "
                        "protocol or environment published runs use, or anything in costs/ or reviews/, and "
                        "when it adds or changes a run below its floor")
    p.set_defaults(run=_check)


def _add_serve(commands: Commands) -> None:
    p = commands.add_parser("serve", help="preview the site on localhost, rebuilt and reloaded on every change",
                            epilog=EXAMPLES["serve"], formatter_class=argparse.RawDescriptionHelpFormatter,
                            description="Build into .kindex-serve/site (never the publishable output), serve it over\n"
                                        "HTTP under its base path as GitHub Pages would, and rebuild when content,\n"
                                        "templates, static files or the config change. Open pages reload by themselves;\n"
                                        "while the content has problems the last good site stays served, with the\n"
                                        "problems shown over every page.")
    _add_site_options(p)
    p.add_argument("--base-url", metavar="URL", help="URL the site is served from; its path is served (default: "
                                                     "base_url in kindex.toml, else /)")
    p.add_argument("--port", type=_port, default=8000, help="TCP port to listen on (default: 8000)")
    p.add_argument("--bind", metavar="ADDRESS", default="127.0.0.1",
                   help="address to listen on (default: 127.0.0.1, this machine only)")
    p.set_defaults(run=_serve)


def _add_digest(commands: Commands) -> None:
    p = commands.add_parser("digest", help="print the sha256: digest of files, as a run's digests are made",
                            epilog=EXAMPLES["digest"], formatter_class=argparse.RawDescriptionHelpFormatter,
                            description="Print 'sha256:<hex>  FILE' for each file: the SHA-256 of its bytes (a kernel\n"
                                        "source's implementationDigest), or with --json of its JSON value in canonical\n"
                                        "form (sorted keys, no spaces, UTF-8), as the importers make protocol,\n"
                                        "environment and workload digests.")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--json", action="store_true", help="digest each file's JSON value in canonical form")
    p.set_defaults(run=_digest)


def _add_new_run(commands: Commands) -> None:
    p = commands.add_parser("new-run", help="write a bundle for your run of a problem on a timing host already in content/",
                            epilog=EXAMPLES["new-run"], formatter_class=argparse.RawDescriptionHelpFormatter,
                            description="Write a bundle for a new run of a problem on a timing host that content/ already\n"
                                        "has runs of: their protocol, environment and workload, so the run joins their\n"
                                        "table. Numbers not given are left as TODO values, which check reports until\n"
                                        "they are replaced. Never overwrites a file.")
    _add_site_options(p)
    p.add_argument("--problem", required=True, metavar="SLUG", help="the problem, as in /problems/<slug>/")
    p.add_argument("--host", required=True, metavar="NAME",
                   help="the timing host, as in /hosts/<name>/ (its environment's metadata.name)")
    p.add_argument("--implementation", required=True, metavar="LABEL", help="your implementation's name in the table")
    p.add_argument("--lab", required=True, metavar="NAME", help="who timed it: the title's last part")
    p.add_argument("--out", dest="out_file", metavar="FILE", type=Path,
                   help="file to write (default: CONTENT/<lab>/<run name>.json)")
    p.add_argument("--mean-ms", metavar="X", help="mean latency in milliseconds (rounded to whole nanoseconds)")
    p.add_argument("--ci-ms", nargs=2, metavar=("LO", "HI"),
                   help="95%% confidence interval of the mean in milliseconds (rounded outwards to nanoseconds)")
    p.add_argument("--samples", type=int, metavar="N", help="how many timed runs the mean is over")
    p.add_argument("--source", type=Path, metavar="FILE",
                   help="your kernel's source file: its digest becomes the run's implementationDigest, and it is "
                        "named as the run's implementationSource (copied beside the bundle when it is elsewhere), "
                        "shown on the run's page")
    p.set_defaults(run=_new_run)


def _add_new(commands: Commands) -> None:
    p = commands.add_parser("new", help="start a leaderboard repository of your own in a new folder",
                            epilog=EXAMPLES["new"], formatter_class=argparse.RawDescriptionHelpFormatter,
                            description="Write a leaderboard repository into DIR (made if missing; refused unless empty):\n"
                                        "kindex.toml, an example run and an about page stating the rules under content/,\n"
                                        "a README, a .gitignore, and GitHub workflows that check pull requests and publish\n"
                                        "the site on GitHub Pages with this version of kindex-site's GitHub Action.\n"
                                        "Settings not given as flags are asked for when stdin is a terminal; otherwise\n"
                                        "they take their defaults.")
    p.add_argument("dir", type=Path, metavar="DIR", help="the new project's folder")
    p.add_argument("--title", metavar="TEXT", help="the leaderboard's title (default: from DIR's name)")
    p.add_argument("--base-url", metavar="URL",
                   help="URL the site is served from, e.g. https://owner.github.io/repo/ (default: /; the "
                        "publishing workflow gives the GitHub Pages URL)")
    p.add_argument("--reference", metavar="LABEL",
                   help="the implementation speedups are against, as runs' titles name it (default: PyTorch eager)")
    p.add_argument("--action", metavar="OWNER/REPO@REF",
                   help="the GitHub Action the workflows use (default: this version's, "
                        "<its repository>@v<version>)")
    p.set_defaults(run=_new)


def _config(args: argparse.Namespace):
    return load_config(args.config, {
        "content_dir": args.content,
        "output_dir": getattr(args, "out", None),
        "base_url": getattr(args, "base_url", None),
    })


def _print_warnings(warnings: list[str], verbose: bool = False) -> None:
    for line in warning_lines(warnings, verbose):
        print(line, file=sys.stderr)


def _base_url_note(config, verbose: bool) -> None:
    """Where no sitemap, feed or canonical link can be made, said where it matters: with --verbose, and in
    CI, where a build is usually the one published (a local preview needs none of them)."""
    if config.absolute_url or not (verbose or os.environ.get("CI", "").lower() not in ("", "0", "false")):
        return
    print(f"note: base_url {config.base_url!r} is a path, not an absolute URL: sitemap.xml, feed.xml and canonical "
          "links need one and were left out (e.g. --base-url https://owner.github.io/repo/; docs/publishing.md, "
          "\"Base URL\")", file=sys.stderr)


def _build(args: argparse.Namespace) -> int:
    if args.watch:
        from .watch import watch_build

        return watch_build(args.config, {"content_dir": args.content, "output_dir": args.out,
                                         "base_url": args.base_url}, clean=args.clean, timings=args.timings)
    config = _config(args)
    out = config.folder("output_dir")
    reuse = Reuse(out, resident=False)
    watcher = reuse.held_by()
    if watcher is not None:
        raise KindexError(f"{display(out)}/: a kindex-site build --watch{watcher} is "
                          "building into it (it rebuilds on every change); stop it first to build here")
    for note in reuse.recover(args.clean):  # what a killed build left, put right first
        print(f"note: {note}", file=sys.stderr)
    if not args.clean:
        last = reuse.unchanged(config, os.environ)
        if last is not None:
            _print_warnings(last.warnings, args.verbose)
            for note in last.notes:
                print(f"note: {note}", file=sys.stderr)
            _base_url_note(config, args.verbose)
            print(f"Up to date: {plural(last.summary['pages'], 'page')} from {plural(last.summary['runs'], 'run')}, "
                  f"no input changed → {display(out)}/")
            return 0
    from .build import build  # (the heavy imports: only now that there is work to do)

    result = build(config, reuse)  # (it holds what `unchanged` found)
    args.held.append(reuse)
    _print_warnings(result.warnings, args.verbose)
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    _base_url_note(config, args.verbose)
    if args.timings:
        for phase, seconds in result.timings.items():
            print(f"{seconds:8.3f} s  {phase}", file=sys.stderr)
    changed = "" if result.changed == result.files else f", {plural(result.changed, 'file')} changed"
    print(f"Built {plural(result.pages, 'page')} from {plural(result.runs, 'run')} "
          f"in {result.seconds:.1f} s{changed} → {display(result.output)}/")
    return 0


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0-65535)")
    return port


def _serve(args: argparse.Namespace) -> int:
    from .serve import serve

    return serve(args.config, {"content_dir": args.content, "base_url": args.base_url}, args.bind, args.port)


def _check(args: argparse.Namespace) -> int:
    from .build import check

    try:
        if args.base is None:
            content, lb, warnings = _checked(check, _config(args), args.strict)
        else:
            from .review import pull_request

            # The base's settings and the content the merge would publish, never the pull request's own.
            overrides = {"content_dir": args.content}
            with pull_request(args.config, overrides, args.base) as pr:
                # (its own runs below their floor are judged with its other changes: pr.review)
                content, lb, warnings = _checked(check, pr.config, args.strict, pr.problems, floors=False)
                found = pr.review(content, lb)
            _report_review(found)
    except KindexError as e:
        if args.format != "github":
            raise
        return _annotate_failure(e)
    if args.format == "github":
        from .submit import print_annotations

        print_annotations(warnings, "warning")
    else:
        _print_warnings(warnings, args.verbose)
    print(f"OK: {plural(len(content.runs), 'run')} on {plural(len(lb.problems), 'problem')} "
          f"from {plural(content.files, 'file')}, no problems found")
    return 0


def _checked(check, config, strict: bool, problems: list[str] = (), floors: bool = True):
    """The content checked: its runs below their floor (`floors`) are problems, and with --strict its
    warnings too; `problems` found before it are said first."""
    from .review import below_floor

    try:
        content, lb = check(config)
    except KindexError as e:
        raise KindexError([*problems, *e.errors], warnings=e.warnings) from None
    warnings = content.warnings + lb.warnings  # (the same a build prints)
    too_fast = below_floor(lb) if floors else []
    if too_fast or (strict and warnings):
        raise KindexError([*problems, *too_fast, *(warnings if strict else ())], warnings=() if strict else warnings)
    return content, lb, warnings


def _report_review(found) -> None:
    """check --base: the change log on stdout (and in GitHub's step summary); KindexError when the
    change needs a maintainer's review."""
    text = found.summary()
    print(text)
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary_file:
        with open(summary_file, "a", encoding="utf-8") as f:
            f.write(text)
    if found.problems:
        raise KindexError(found.problems)


def _annotate_failure(error: KindexError) -> int:
    """check --format github: each problem as an error annotation (stdout), then the count (stderr)."""
    from .submit import print_annotations

    print_annotations(error.problems, "error")
    print(f"error: {summarize(error)}; nothing was written", file=sys.stderr)
    return 1


def _digest(args: argparse.Namespace) -> int:
    from .submit import digest_lines

    lines, problems = digest_lines(args.files, args.json)
    for line in lines:
        print(line)
    if problems:
        raise KindexError(problems)
    return 0


def _new_run(args: argparse.Namespace) -> int:
    from .submit import Timing, new_run

    timing = Timing.parse(args.mean_ms, args.ci_ms, args.samples)
    made = new_run(_config(args), args.problem, args.host, args.implementation, args.lab, args.out_file,
                   timing, args.source)
    for line in made.report():
        print(line)
    return 0


def _new(args: argparse.Namespace) -> int:
    from .scaffold import new_project, settings_for

    settings = settings_for(args.dir, args.title, args.base_url, args.reference, args.action,
                            interactive=sys.stdin is not None and sys.stdin.isatty())
    for line in new_project(args.dir, settings).report():
        print(line)
    return 0


def main(argv: list[str] | None = None, held: list | None = None) -> int:
    """The command; what a build made goes into `held` (run() frees it with the process, not one by one)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = make_parser(argv).parse_args(argv)
    args.held = held if held is not None else []
    try:
        with sigterm_as_interrupt():  # (what CI cancellation and `docker stop` send: handled as Ctrl-C)
            return args.run(args)
    except KindexError as e:
        for line in e.errors:
            print(line, file=sys.stderr)
        _print_warnings(e.warnings, getattr(args, "verbose", False))
        print(f"error: {summarize(e)}; nothing was written", file=sys.stderr)
        return 1
    except KeyboardInterrupt as e:  # (publish_swap.Interrupted for SIGTERM, and after a build's commit)
        if getattr(e, "committed", False):
            print(f"interrupted once the new site was in place: {display(e.out)}/ is the new site, whole",
                  file=sys.stderr)
        elif args.command in SITE_COMMANDS:
            print("interrupted; nothing was written", file=sys.stderr)
        else:
            print("interrupted", file=sys.stderr)
        return 128 + getattr(e, "signum", signal.SIGINT)


def run() -> NoReturn:
    """The `kindex-site` command: main(), then the process ends at once, what a build made `held` until
    then: freeing a big build's objects one by one, or the cycle collector walking them, would only delay
    the exit (the system takes the memory back whole). `serve`, which runs on, turns the collector back on."""
    gc.disable()
    held: list = []
    try:
        code = main(held=held)
    except BrokenPipeError:  # the reader left (`kindex-site build | head -c 0`): the work is done, the rest unsaid
        code = 1
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # closed when we started (`kindex-site build >&-`): nothing to flush
            continue
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`kindex-site build | head`), a closed stream
            code = code or 1
    os._exit(code)


if __name__ == "__main__":
    run()
