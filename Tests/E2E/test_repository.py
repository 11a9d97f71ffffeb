"""The repository as a user clones it: it stands alone, claims the Swift it needs, and declares
only the dependencies it uses.  These read files and run ``swift package dump-package``; they start
no server."""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from fhlocal import REPO_ROOT

SKIPPED_DIRS = {".git", ".build", ".swiftpm", "__pycache__", ".pytest_cache", "dist"}
PACKAGES = [REPO_ROOT, REPO_ROOT / "Benchmarks", REPO_ROOT / "Fuzz"]

# Language features that first compile with a given Swift version and can be recognised in source
# text.  A feature used anywhere raises the minimum the package must claim.
FEATURES = {
    "@concurrent": (6, 2),
    "nonisolated(nonsending)": (6, 2),
    "InlineArray<": (6, 2),
    "RawSpan": (6, 2),
    "MutableSpan": (6, 2),
    "OutputSpan": (6, 2),
}


def repository_files():
    for root, dirs, files in os.walk(REPO_ROOT):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS]
        for name in files:
            yield Path(root) / name


def swift_sources():
    return [p for p in repository_files() if p.suffix == ".swift"]


def test_nothing_refers_to_folders_beside_the_checkout():
    # Spelled in two pieces so this file does not find itself.
    needles = ["../" + "shared", "shared/" + "sigv4-test-suite", "REFERENCE" + ".md"]
    found = []
    for path in repository_files():
        try:
            text = path.read_text("utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for needle in needles:
            if needle in text:
                found.append(f"{path.relative_to(REPO_ROOT)}: {needle}")
    assert found == [], "the repository must stand alone:\n" + "\n".join(found)


def test_signing_vectors_are_vendored_with_their_licence():
    suite = REPO_ROOT / "Tests" / "sigv4-test-suite"
    assert (suite / "LICENSE").read_text().lstrip().startswith("Apache License")
    assert "Amazon.com" in (suite / "NOTICE").read_text()
    cases = [d for d in (suite / "v4").iterdir() if d.is_dir()]
    assert len(cases) == 38
    for case in cases:
        for name in ("context.json", "request.txt", "header-canonical-request.txt",
                     "header-string-to-sign.txt", "header-signature.txt", "header-signed-request.txt"):
            assert (case / name).is_file(), f"{case.name}/{name} missing"


def tools_version(package: Path) -> tuple[int, int]:
    first = (package / "Package.swift").read_text().splitlines()[0]
    match = re.fullmatch(r"// swift-tools-version:\s*(\d+)\.(\d+)(?:\.\d+)?", first.strip())
    assert match, f"{package}/Package.swift: first line {first!r}"
    return int(match[1]), int(match[2])


def test_the_swift_version_claimed_is_the_one_the_code_needs():
    readme = (REPO_ROOT / "README.md").read_text()
    match = re.search(r"Needs Swift (\d+)\.(\d+) or later", readme)
    assert match, "the README states no minimum Swift version"
    claimed = (int(match[1]), int(match[2]))
    for package in PACKAGES:
        assert tools_version(package) == claimed, f"{package}/Package.swift vs README {claimed}"
    needed = {}
    for path in swift_sources():
        text = path.read_text("utf-8")
        for feature, version in FEATURES.items():
            if feature in text and version > claimed:
                needed.setdefault(feature, []).append(str(path.relative_to(REPO_ROOT)))
    assert needed == {}, f"features newer than Swift {claimed}: {needed}"


def imported_modules(folder: Path) -> set[str]:
    pattern = re.compile(
        r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
        r"(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)",
        re.MULTILINE)
    modules = set()
    for path in folder.rglob("*.swift"):
        modules |= set(pattern.findall(path.read_text("utf-8")))
    return modules


@functools.cache
def dumped_package() -> dict:
    swift = shutil.which("swift")
    assert swift, "swift is not on PATH"
    dump = subprocess.run([swift, "package", "dump-package"], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=240, check=True)
    return json.loads(dump.stdout)


@pytest.mark.timeout_s(300)
def test_every_declared_dependency_is_imported():
    package = dumped_package()
    targets = {t["name"]: t for t in package["targets"]}
    unused = []
    used_packages = set()
    for target in package["targets"]:
        if target["type"] in ("system", "binary", "plugin"):
            continue
        default = "Tests" if target["type"] == "test" else "Sources"
        folder = REPO_ROOT / (target.get("path") or f"{default}/{target['name']}")
        imports = imported_modules(folder)
        for dependency in target["dependencies"]:
            if "product" in dependency:
                name, package_name = dependency["product"][0], dependency["product"][1]
                used_packages.add(package_name.lower())
            elif "byName" in dependency:
                name = dependency["byName"][0]
                # Executables are dependencies for building them (tests run them), not imports.
                if targets.get(name, {}).get("type") == "executable":
                    continue
            else:
                name = dependency.get("target", [None])[0]
            if name and c99name(name) not in imports:
                unused.append(f"{target['name']} -> {name}")
    declared = {
        d["sourceControl"][0]["identity"]
        for d in package["dependencies"] if "sourceControl" in d
    }
    unused += [f"package {p}" for p in sorted(declared - used_packages)]
    assert unused == [], "declared but never imported:\n" + "\n".join(unused)


def module_map() -> dict[str, set[str]]:
    """docs/architecture.md's table of layers: what each module may import."""
    text = (REPO_ROOT / "docs" / "architecture.md").read_text("utf-8")
    section = text.split("## Modules", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and "`" in cells[1]:
            rows.append((cells[0], re.findall(r"`([^`]+)`", cells[1]), cells[2]))
    layers: dict[str, list[str]] = {}
    for layer, modules, _ in rows:
        layers.setdefault(layer, []).extend(modules)
    allowed = {}
    for layer, modules, may_import in rows:
        for index, module in enumerate(modules):
            reachable = set()
            for item in (part.strip() for part in may_import.split(",")):
                if item.endswith(" later in this list"):
                    same = item.removesuffix(" later in this list")
                    assert same == layer, f"{layer}: '{item}' names another layer"
                    reachable |= set(modules[index + 1:])
                else:
                    assert item in layers, f"{layer}: '{item}' is not a layer of the table"
                    reachable |= set(layers[item])
            allowed[module] = reachable
    return allowed


@pytest.mark.timeout_s(300)
def test_the_module_map_is_the_package():
    """Every module of Sources is in the architecture's table, and imports only what its row allows."""
    allowed = module_map()
    package = dumped_package()
    ours = {
        t["name"]: t for t in package["targets"]
        if t["type"] in ("regular", "executable") and not (t.get("path") or "").startswith("Tests")
    }
    assert sorted(set(ours) - set(allowed)) == [], "modules the table does not place"
    assert sorted(set(allowed) - set(ours)) == [], "modules in the table that the package does not have"
    forbidden = []
    for name, target in ours.items():
        for dependency in target["dependencies"]:
            needed = (dependency.get("byName") or dependency.get("target") or [None])[0]
            if needed in ours and needed not in allowed[name]:
                forbidden.append(f"{name} -> {needed}")
    assert forbidden == [], "arrows the module map does not allow:\n" + "\n".join(forbidden)


def c99name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


APP_USES_THE_CLIENT = """\
import FirehoseClient
import Foundation

// What an app names: the client, its credentials, the error of a service answer, an operation.
let client = FirehoseClient(
    endpoint: URL(string: "http://127.0.0.1:4573")!, region: "us-east-1",
    credentialsProvider: StaticCredentialsProvider(AWSCredentials(accessKeyId: "a", secretAccessKey: "b")))
let failure: FirehoseError? = nil
print(client, failure?.code ?? "-", FirehoseOperation.putRecord.rawValue)
"""


@pytest.mark.timeout_s(900)
def test_an_app_sees_only_what_the_client_exports(tmp_path):
    """FirehoseClient re-exports the three types an app names, not the whole of FirehoseWire and
    AWSSigV4: an app package that imports only FirehoseClient builds, and one that reaches for a
    wire internal (ServiceLimits) does not."""
    swift = shutil.which("swift")
    assert swift, "swift is not on PATH"
    app = tmp_path / "app"
    (app / "Sources" / "app").mkdir(parents=True)
    (app / "Package.swift").write_text(
        "// swift-tools-version:6.2\n"
        "import PackageDescription\n"
        "let package = Package(\n"
        '    name: "app", platforms: [.macOS(.v15)],\n'
        f'    dependencies: [.package(name: "firehose-local", path: {json.dumps(str(REPO_ROOT))})],\n'
        '    targets: [.executableTarget(name: "app", dependencies: [\n'
        '        .product(name: "FirehoseClient", package: "firehose-local")])]\n'
        ")\n")
    main = app / "Sources" / "app" / "main.swift"
    main.write_text(APP_USES_THE_CLIENT)

    def build():
        return subprocess.run([swift, "build", "--product", "app"], cwd=app, capture_output=True, text=True,
                              timeout=840)

    built = build()
    assert built.returncode == 0, built.stdout[-4000:] + built.stderr[-4000:]

    main.write_text(APP_USES_THE_CLIENT + "print(ServiceLimits.maxBatchRecords)\n")
    refused = build()
    assert refused.returncode != 0
    assert "cannot find 'ServiceLimits' in scope" in refused.stdout + refused.stderr
