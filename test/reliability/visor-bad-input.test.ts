import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { tableRows } from "@chaind/core/config-table";
import { goPlatform } from "@chaind/core/go-platform";
import { silentLogger } from "@chaind/core/logger";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installArtifact } from "../../supervisor/src/artifacts/artifact-install.js";
import { DEFAULT_MAX_DOWNLOAD_BYTES } from "../../supervisor/src/artifacts/downloader.js";
import { artifactForPlan } from "../../supervisor/src/artifacts/plan-info.js";
import { loadVisorConfig, VISOR_SETTINGS } from "../../supervisor/src/config/visor-config.js";
import { readUpgradeInfo } from "../../supervisor/src/daemon/upgrade-info.js";
import { VisorError } from "../../supervisor/src/errors/visor-error.js";
import { VisorLayout } from "../../supervisor/src/home/visor-layout.js";
import { readBatch } from "../../supervisor/src/upgrade/batch-feed.js";
import { fuzzAssert } from "./fuzz-assert.js";
import { soakSize } from "./soak-size.js";
import { type TarEntry, tarOf } from "./tar-builder.js";

const RUNS = soakSize("visor_fuzz", 200);
const ARCHIVE_RUNS = soakSize("archive_fuzz", 60);
const SHA = "ab".repeat(32);

/** Ends with a VisorError of one of the codes, or rethrows what escaped (a crash of another type). */
async function outcome<T>(run: () => Promise<T> | T, codes: string[]): Promise<T | VisorError> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof VisorError && codes.includes(e.code) && e.message.length > 0) return e;
    throw e;
  }
}

/** Plausible and hostile JSON values for each plan field. */
const fieldValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom("", " ", "v2", "V2", "../../etc", "..", ".", "a/b", "%2e%2e", "x".repeat(300), "\u0000"),
  fc.integer(),
  fc.constantFrom(0, -1, 1.5, 2 ** 53, "12", " 12 ", "0x10", "1e3", true, [5], null),
);

const upgradeInfoDoc = fc.oneof(
  fc.record(
    { name: fieldValue, height: fieldValue, info: fieldValue, time: fieldValue },
    { requiredKeys: [] },
  ),
  fc.record({
    name: fc.string({ maxLength: 20 }),
    height: fc.integer({ min: -5, max: 1e9 }),
    info: fc.string(),
  }),
  fc.jsonValue({ maxDepth: 2 }),
);

const upgradeInfoText = fc.oneof(
  upgradeInfoDoc.map((d) => JSON.stringify(d) ?? ""),
  upgradeInfoDoc.map((d) => (JSON.stringify(d) ?? "").slice(0, -1)),
  fc.string({ maxLength: 80 }),
  fc.uint8Array({ maxLength: 80 }).map((b) => Buffer.from(b).toString("latin1")),
);

/** Heights cosmovisor (Go's json into int64) would take: a JSON integer. */
function goAcceptsHeight(raw: unknown): boolean {
  return typeof raw === "number" && Number.isSafeInteger(raw) && raw > 0;
}

describe("visor's parsers under random upgrade-info.json and Plan.info", () => {
  let dir: string;
  let server: Server;
  let base: string;
  const docs = new Map<string, { status: number; body: Buffer }>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "visor-fuzz-"));
    server = createServer((req, res) => {
      const doc = docs.get(req.url?.split("?")[0] ?? "");
      if (!doc) return res.writeHead(404).end();
      res.writeHead(doc.status, { "content-length": doc.body.length }).end(doc.body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads random upgrade-info.json contents as a valid plan, null when empty, or a clean UPGRADE_INFO error", async () => {
    const layout = new VisorLayout({ home: dir, name: "chaind", disableRecase: false });
    const file = join(dir, "upgrade-info.json");
    await fuzzAssert(
      {
        suite: "visor bad input",
        property:
          "reads random upgrade-info.json contents as a valid plan, null when empty, or a clean UPGRADE_INFO error",
        runs: RUNS,
      },
      fc.asyncProperty(upgradeInfoText, async (text) => {
        writeFileSync(file, text);
        const got = await outcome(() => readUpgradeInfo(file), ["UPGRADE_INFO"]);
        if (got instanceof VisorError) return;
        if (got === null) {
          expect(text).toBe("");
          return;
        }
        expect(typeof got.name === "string" && got.name.length > 0, text).toBe(true);
        expect(Number.isSafeInteger(got.height) && got.height > 0, text).toBe(true);
        expect(typeof got.info, text).toBe("string");
        // Only a JSON integer is a height, as cosmovisor decodes it; a time, when there, is a string.
        const doc = JSON.parse(text) as { height?: unknown; time?: unknown };
        expect(goAcceptsHeight(doc.height), text).toBe(true);
        expect(got.height, text).toBe(doc.height);
        expect(doc.time === undefined || typeof doc.time === "string", text).toBe(true);
        // The plan's folder stays one level under upgrades/, or the name is refused.
        const folder = await outcome(() => layout.upgradeDir(got.name), ["LAYOUT"]);
        if (folder instanceof VisorError) return;
        expect(dirname(folder), text).toBe(layout.upgradesDir);
      }),
    );
  });

  it("reads random settings as a config or one CONFIG error naming exactly the refused variables, one line each", async () => {
    const base = { DAEMON_HOME: dir, DAEMON_NAME: "chaind" };
    const names = tableRows(VISOR_SETTINGS)
      .map((r) => r.key)
      .filter((k) => k !== "DAEMON_HOME");
    const value = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.constantFrom(
        ...["", " ", "true", "FALSE", "yes", "0", "1", "-1", "0s", "300ms", "1m30s", "10", "1e3", "0x10"],
        ...["99999999999999999999", "kitchen", "rfc3339", "/", "/nonexistent", "a/b", ".", "..", "\u0000\n"],
        ...["ab".repeat(32), `${"ab".repeat(32)},x`, "localhost:9090", "1,2"],
      ),
    );
    const refusedAlone = async (k: string, v: string) =>
      (await outcome(() => loadVisorConfig({ ...base, [k]: v }), ["CONFIG"])) instanceof VisorError;
    await fuzzAssert(
      {
        suite: "visor bad input",
        property:
          "reads random settings as a config or one CONFIG error naming exactly the refused variables",
        runs: RUNS,
      },
      fc.asyncProperty(fc.dictionary(fc.constantFrom(...names), value, { maxKeys: 8 }), async (assigned) => {
        const refused = [];
        for (const k of names) if (k in assigned && (await refusedAlone(k, assigned[k]))) refused.push(k);
        const got = await outcome(() => loadVisorConfig({ ...base, ...assigned }), ["CONFIG"]);
        if (!(got instanceof VisorError)) {
          expect(refused).toEqual([]);
          return;
        }
        const lines = got.message.split("\n");
        expect(lines.map((l) => l.slice(0, l.indexOf(": ")))).toEqual(refused);
        for (const line of lines)
          expect(line).toMatch(/^[A-Z_]+: (expected .+, got ".*"|not set; expected .+)$/);
      }),
    );
  });

  it("reads random upgrade-info.json.batch contents as plans sorted by height, or a clean UPGRADE_INFO error", async () => {
    const file = join(dir, "upgrade-info.json.batch");
    const batchText = fc.oneof(
      fc.array(upgradeInfoDoc, { maxLength: 4 }).map((a) => JSON.stringify(a)),
      fc.array(upgradeInfoDoc, { maxLength: 4 }).map((a) => JSON.stringify(a).slice(0, -1)),
      upgradeInfoText,
    );
    await fuzzAssert(
      { suite: "visor bad input", property: "random upgrade-info.json.batch contents", runs: RUNS },
      fc.asyncProperty(batchText, async (text) => {
        writeFileSync(file, text);
        const got = await outcome(() => readBatch(file), ["UPGRADE_INFO"]);
        if (got instanceof VisorError) return;
        expect(Array.isArray(JSON.parse(text)), text).toBe(true);
        for (const plan of got) {
          expect(typeof plan.name === "string" && plan.name.length > 0, text).toBe(true);
          expect(Number.isSafeInteger(plan.height) && plan.height > 0, text).toBe(true);
        }
        expect(
          got.map((p) => p.height),
          text,
        ).toEqual([...got.map((p) => p.height)].sort((a, b) => a - b));
      }),
    );
  });

  it("maps any upgrade name to one folder under upgrades/, or refuses it", async () => {
    for (const disableRecase of [false, true]) {
      const layout = new VisorLayout({ home: dir, name: "chaind", disableRecase });
      await fuzzAssert(
        {
          suite: "visor bad input",
          property: `maps any upgrade name to one folder under upgrades/ (disableRecase ${disableRecase})`,
          runs: RUNS,
        },
        fc.property(
          fc.oneof(
            fc.string({ maxLength: 40 }),
            fc.constantFrom("..", ".", "../x", "a/../..", "/abs", "%2e%2e", "x\u0000y", "é", "A".repeat(300)),
          ),
          (name) => {
            let folder: string;
            try {
              folder = layout.upgradeDir(name);
            } catch (e) {
              expect(e, JSON.stringify(name)).toBeInstanceOf(VisorError);
              return;
            }
            expect(dirname(folder), JSON.stringify(name)).toBe(layout.upgradesDir);
            const rel = relative(layout.upgradesDir, folder);
            expect(rel !== ".." && !rel.startsWith(`..${sep}`), JSON.stringify(name)).toBe(true);
          },
        ),
      );
    }
  });

  const platform = goPlatform();
  const policy = () => ({
    allowFileUrls: false,
    home: dir,
    dataBackupDir: dir,
    maxDownloadBytes: DEFAULT_MAX_DOWNLOAD_BYTES,
  });
  const urlValue = fc.oneof(
    fc.constantFrom(
      `https://example.invalid/chaind?checksum=sha256:${SHA}`,
      "https://example.invalid/chaind",
      `https://example.invalid/chaind?checksum=sha256:${SHA.slice(2)}`,
      "https://example.invalid/chaind?checksum=md5:00",
      "ftp://example.invalid/x",
      "not a url",
      "",
      `file:///etc/passwd?checksum=sha512:${"cd".repeat(64)}`,
    ),
    fc.webUrl({ withQueryParameters: true }),
    fc.jsonValue({ maxDepth: 1 }),
  );
  const binaries = fc.dictionary(
    fc.oneof(
      fc.constantFrom(platform, "any", "linux/arm64", "darwin/amd64", "__proto__"),
      fc.string({ maxLength: 10 }),
    ),
    urlValue,
    { maxKeys: 4 },
  );
  const planDoc = fc.oneof(
    fc.record({ binaries }, { requiredKeys: [] }),
    fc.record({ binaries: fc.jsonValue({ maxDepth: 2 }) }),
    fc.jsonValue({ maxDepth: 2 }),
  );

  const expectArtifact = (got: unknown, what: string) => {
    if (got instanceof VisorError) return;
    const a = got as { url: string; checksum: { algorithm: string; hex: string } | null };
    expect(["http:", "https:", "file:"], what).toContain(new URL(a.url).protocol);
    if (a.checksum) expect(a.checksum.hex, what).toMatch(/^([0-9a-f]{64}|[0-9a-f]{128})$/);
  };

  it("reads random inline Plan.info as an artifact URL or a clean PLAN_INFO / CHECKSUM error", async () => {
    const info = fc.oneof(
      planDoc.map((d) => JSON.stringify(d) ?? ""),
      planDoc.map((d) => ` ${(JSON.stringify(d) ?? "").slice(0, -1)}`),
      // Not a URL this machine would fetch: random text that does not start like http(s)/file.
      fc.string({ maxLength: 60 }).filter((s) => !/^\s*(https?|file):/i.test(s)),
    );
    await fuzzAssert(
      {
        suite: "visor bad input",
        property: "reads random inline Plan.info as an artifact URL or a clean PLAN_INFO / CHECKSUM error",
        runs: RUNS,
      },
      fc.asyncProperty(info, fc.boolean(), async (text, mustHaveChecksum) => {
        const got = await outcome(
          () => artifactForPlan(text, { mustHaveChecksum, policy: policy() }, { logger: silentLogger }),
          ["PLAN_INFO", "CHECKSUM"],
        );
        expectArtifact(got, text);
        if (!(got instanceof VisorError) && mustHaveChecksum) expect(got.checksum, text).not.toBeNull();
      }),
    );
  });

  it("reads Plan.info URLs to random documents (bad JSON, HTTP errors, huge, wrong checksum) cleanly", async () => {
    const body = fc.oneof(
      planDoc.map((d) => Buffer.from(JSON.stringify(d) ?? "")),
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
      fc.constant(Buffer.alloc(1024 * 1024 + 1, 0x20)),
    );
    let n = 0;
    await fuzzAssert(
      {
        suite: "visor bad input",
        property:
          "reads Plan.info URLs to random documents (bad JSON, HTTP errors, huge, wrong checksum) cleanly",
        runs: Math.ceil(RUNS / 4),
      },
      fc.asyncProperty(
        body,
        fc.constantFrom(200, 200, 200, 404, 500, 302),
        fc.constantFrom("none", "right", "wrong"),
        async (doc, status, checksum) => {
          const path = `/plan-${n++}.json`;
          docs.set(path, { status, body: doc });
          const { createHash } = await import("node:crypto");
          const digest = createHash("sha256").update(doc).digest("hex");
          const query = checksum === "none" ? "" : `?checksum=sha256:${checksum === "right" ? digest : SHA}`;
          const got = await outcome(
            () =>
              artifactForPlan(
                base + path + query,
                { mustHaveChecksum: false, policy: policy() },
                { logger: silentLogger },
              ),
            ["PLAN_INFO", "CHECKSUM"],
          );
          docs.delete(path);
          expectArtifact(got, `${status} ${doc.subarray(0, 100).toString()}`);
          if (checksum === "wrong" || status !== 200 || doc.length > 1024 * 1024)
            expect(got, `${status} ${checksum}`).toBeInstanceOf(VisorError);
        },
      ),
    );
  });
});

/** Every path under `root` (not following links) with its kind, size and mode, minus the `skip` folders. */
function treeOf(root: string, skip: (path: string) => boolean = () => false): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      if (skip(p)) continue;
      const s = lstatSync(p);
      const kind = s.isSymbolicLink() ? `link->${readlinkSync(p)}` : s.isDirectory() ? "dir" : "file";
      out.set(relative(root, p), `${kind} ${s.size} ${(s.mode & 0o7777).toString(8)} ${s.nlink}`);
      if (s.isDirectory()) walk(p);
    }
  };
  walk(root);
  return out;
}

/** Every symlink under `dir` resolves inside it (a dangling one is fine: it points nowhere). */
function expectLinksInside(dir: string): void {
  const real = realpathSync(dir);
  const walk = (d: string) => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      const s = lstatSync(p);
      if (s.isSymbolicLink()) {
        const target = resolve(dirname(p), readlinkSync(p));
        expect(target === dir || target.startsWith(dir + sep), `${p} -> ${readlinkSync(p)}`).toBe(true);
        if (existsSync(p)) expect(realpathSync(p).startsWith(real), p).toBe(true);
      } else if (s.isDirectory()) walk(p);
    }
  };
  walk(dir);
}

describe("installing hostile archives", () => {
  let root: string;
  let sentinel: string;
  let n = 0;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "visor-archive-"));
    sentinel = join(root, "sentinel");
    mkdirSync(sentinel);
    writeFileSync(join(sentinel, "keep.txt"), "keep");
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** A fresh upgrades/<staging> folder two levels under root, with the archive downloaded into it. */
  const stage = (archive: Buffer) => {
    const dir = join(root, "upgrades", `staging-${n++}`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "download");
    writeFileSync(file, archive);
    return { dir, file };
  };

  /** Everything outside the staging folders (which the installs own): the sentinel above all. */
  const outside = () => {
    const tree = treeOf(root, (p) => p.startsWith(join(root, "upgrades") + sep));
    tree.set("/tmp/visor-evil", String(existsSync("/tmp/visor-evil")));
    return tree;
  };

  /** Installs, then checks nothing changed outside the staging folder and no link inside leads out. */
  const install = async (archive: Buffer) => {
    const { dir, file } = stage(archive);
    const before = outside();
    let result: string | unknown;
    try {
      result = await installArtifact(file, dir, "chaind");
    } catch (e) {
      result = e;
    }
    expect(outside()).toEqual(before);
    expectLinksInside(dir);
    return { dir, result };
  };

  const bin: TarEntry = { path: "bin/chaind", data: "#!/bin/sh\necho v2\n", mode: 0o755 };
  const out = "../../sentinel";
  const hostile: [string, TarEntry[], RegExp][] = [
    ["a ../ path", [bin, { path: `${out}/evil`, data: "x" }], /outside the upgrade folder/],
    ["a ../ path inside a longer path", [bin, { path: `bin/../${out}/evil`, data: "x" }], /outside/],
    ["an absolute path", [bin, { path: "/tmp/visor-evil", data: "x" }], /outside/],
    ["a PAX path override", [bin, { path: "innocent", data: "x", pax: { path: `${out}/evil` } }], /outside/],
    [
      "a symlink out, then a file through it",
      [
        bin,
        { path: "bin/out", type: "SymbolicLink", linkpath: `../${out}` },
        { path: "bin/out/evil", data: "x" },
      ],
      /entry "bin\/out" is a symbolic link .*; entry "bin\/out\/evil" passes through a link/,
    ],
    [
      "an absolute symlink",
      [bin, { path: "bin/abs", type: "SymbolicLink", linkpath: "/etc" }, { path: "bin/abs/evil", data: "x" }],
      /entry "bin\/abs" is a symbolic link \(-> "\/etc"\)/,
    ],
    [
      "the binary as a symlink out",
      [{ path: "bin/chaind", type: "SymbolicLink", linkpath: "/bin/sh" }],
      /is a symbolic link/,
    ],
    [
      // The review: each link reads as inside, yet s2 resolves through s1 (the staging root) to upgrades/.
      "a chain of symlinks that each read as inside: a/b/s1 -> ../.., then s2 -> a/b/s1/..",
      [
        bin,
        { path: "a/b/", type: "Directory" },
        { path: "a/b/s1", type: "SymbolicLink", linkpath: "../.." },
        { path: "s2", type: "SymbolicLink", linkpath: "a/b/s1/.." },
      ],
      /entry "s2" is a symbolic link \(-> "a\/b\/s1\/\.\."\): visor, like cosmovisor, unpacks none/,
    ],
    [
      "a symlink that stays inside (cosmovisor unpacks none either)",
      [
        bin,
        { path: "lib/libx.so.1", data: "lib" },
        { path: "lib/libx.so", type: "SymbolicLink", linkpath: "libx.so.1" },
      ],
      /entry "lib\/libx.so" is a symbolic link/,
    ],
    [
      "a hardlink whose target passes through an earlier link",
      [
        bin,
        { path: "h", type: "Link", linkpath: "bin/chaind" },
        { path: "h2", type: "Link", linkpath: "h/x" },
      ],
      /link "h2" -> "h\/x" passes through a link in the archive/,
    ],
    [
      "a hardlink out (chmod would change the outside file)",
      [{ path: "bin/chaind", type: "Link", linkpath: `${out}/keep.txt` }],
      /points outside/,
    ],
    [
      "an absolute hardlink",
      [bin, { path: "bin/h", type: "Link", linkpath: "/etc/hostname" }],
      /points outside/,
    ],
    ["a character device", [bin, { path: "bin/null", type: "CharacterDevice" }], /CharacterDevice/],
    ["a block device", [bin, { path: "bin/disk", type: "BlockDevice" }], /BlockDevice/],
    ["a FIFO", [bin, { path: "bin/pipe", type: "FIFO" }], /FIFO/],
    ["a 5 GiB entry", [bin, { path: "bin/huge", claimedSize: 5 * 1024 ** 3 }], /larger than/],
  ];

  for (const [name, entries, message] of hostile) {
    for (const gzip of [false, true]) {
      it(`refuses ${name}${gzip ? " (gzipped)" : ""} and writes nothing outside`, async () => {
        const { dir, result } = await install(tarOf(entries, { gzip }));
        expect(result).toBeInstanceOf(VisorError);
        expect((result as VisorError).code).toBe("ARCHIVE");
        expect((result as VisorError).message).toMatch(message);
        expect(existsSync(join(dir, "bin", "chaind"))).toBe(false);
      });
    }
  }

  const chain: TarEntry[] = [
    bin,
    { path: "d/", type: "Directory" },
    { path: "d/up", type: "SymbolicLink", linkpath: ".." },
    { path: "d/up/esc", type: "SymbolicLink", linkpath: "../.." },
    { path: "esc/sentinel/evil", data: "x" },
  ];

  it("refuses a symlink chain that only leaves the folder once resolved, and writes nothing outside", async () => {
    // d/up -> .. is the staging root; d/up/esc -> ../.. reads as inside on paper but resolves two levels up.
    const { result } = await install(tarOf(chain));
    // Refused while listing, before anything is written: d/up/esc lies under the link d/up.
    expect(String(result)).toMatch(/entry "d\/up\/esc" passes through a link in the archive/);
  });

  it("refuses the symlink chain with a VisorError (ARCHIVE)", async () => {
    const { result } = await install(tarOf(chain));
    expect(result).toBeInstanceOf(VisorError);
  });
  it("refuses an archive with a damaged header with a VisorError (ARCHIVE)", async () => {
    const archive = tarOf([bin]);
    archive[0] ^= 1;
    const { result } = await install(archive);
    expect(result).toBeInstanceOf(VisorError);
  });

  /** Installs an archive whose entries ask for 0777 / 0666 under the given umask; answers the modes found. */
  const installUnderUmask = async (umask: number) => {
    const mask = process.umask(umask);
    try {
      const { dir, result } = await install(
        tarOf(
          [
            { path: "./", type: "Directory", mode: 0o777 },
            { path: "bin/", type: "Directory", mode: 0o777 },
            { ...bin, mode: 0o777 },
            { path: "lib/libx.so", data: "lib", mode: 0o666 },
          ],
          { gzip: true },
        ),
      );
      expect(result).toBe(join(dir, "bin", "chaind"));
      const modes = new Map(
        [...treeOf(dir).entries()].map(([k, v]) => [k, Number.parseInt(v.split(" ")[2], 8)]),
      );
      modes.set(".", statSync(dir).mode & 0o7777);
      return modes;
    } finally {
      process.umask(mask);
    }
  };
  const writableByOthers = (modes: Map<string, number>) =>
    [...modes.entries()].filter(([, m]) => (m & 0o022) !== 0).map(([k, m]) => `${k} ${m.toString(8)}`);

  it("makes the binary 0755 when the archive asks 0777, under umask 022 and under umask 0", async () => {
    for (const umask of [0o022, 0]) expect((await installUnderUmask(umask)).get("bin/chaind")).toBe(0o755);
  });

  // An archive asking 0777 for the folder and bin/ would let any local user swap bin/chaind before it runs.
  it("leaves nothing group- or world-writable when the archive asks 0777, under umask 022 and under umask 0", async () => {
    for (const umask of [0o022, 0]) expect(writableByOthers(await installUnderUmask(umask))).toEqual([]);
  });

  it("installs or cleanly refuses randomly damaged archives, never writing outside", async () => {
    const good = [
      tarOf([bin, { path: "lib/libx.so", data: "lib".repeat(200) }]),
      tarOf([bin, { path: "lib/libx.so", data: "lib".repeat(200) }], { gzip: true }),
    ];
    await fuzzAssert(
      {
        suite: "visor bad input",
        property: "installs or cleanly refuses randomly damaged archives, never writing outside",
        runs: ARCHIVE_RUNS,
      },
      fc.asyncProperty(
        fc.nat({ max: 1 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }),
        fc.option(fc.nat(), { nil: undefined }),
        async (which, flips, cut) => {
          const archive = Buffer.from(good[which]);
          for (const [pos, xor] of flips) archive[pos % archive.length] ^= xor;
          const damaged = cut === undefined ? archive : archive.subarray(0, cut % archive.length);
          const { dir, result } = await install(damaged);
          if (typeof result === "string") {
            expect(result).toBe(join(dir, "bin", "chaind"));
            expect(statSync(result).mode & 0o777).toBe(0o755);
            return;
          }
          expect(result, String(result)).toBeInstanceOf(VisorError);
          expect((result as Error).message.length).toBeGreaterThan(0);
        },
      ),
    );
  });
});
