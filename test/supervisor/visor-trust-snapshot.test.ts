import { type ChildProcess, fork } from "node:child_process";
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import { decodeBlockStoreState } from "@chaind/core/comet-block-store-state";
import { silentLogger } from "@chaind/core/logger";
import { ClassicLevel } from "classic-level";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readHomeHeight } from "../../supervisor/src/daemon/home-height.js";
import { readManifest } from "../../supervisor/src/daemon/leveldb-manifest.js";
import { VisorLayout } from "../../supervisor/src/home/visor-layout.js";
import { backupData } from "../../supervisor/src/upgrade/data-backup.js";
import { fakeBinary, visorHome } from "./visor-home.js";

const WRITER = join(import.meta.dirname, "../../fixtures/daemons/leveldb-writer.cjs");

/** fixtures/daemons/leveldb-writer.cjs, a real process writing a real LevelDB as a node does. */
class Writer {
  readonly proc: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: string | null; stderr: string }>;
  private stderr = "";

  constructor(dir: string) {
    this.proc = fork(WRITER, [dir], { stdio: ["ignore", "ignore", "pipe", "ipc"] });
    this.proc.stderr!.on("data", (c) => (this.stderr += c));
    this.exited = new Promise((resolve) =>
      this.proc.once("exit", (code, signal) => resolve({ code, signal, stderr: this.stderr })),
    );
  }

  /** The writer's answer carrying `field`; fails, naming how it ended, if it died first. */
  async answer(field: string, send?: string): Promise<number> {
    const got = new Promise<number>((resolve) => {
      const on = (m: Record<string, number>) => {
        if (!(field in m)) return;
        this.proc.off("message", on);
        resolve(m[field]);
      };
      this.proc.on("message", on);
    });
    if (send) this.proc.send(send);
    const died = this.exited.then((e) => {
      throw new Error(`the writer died: code ${e.code}, signal ${e.signal}: ${e.stderr}`);
    });
    return Promise.race([got, died]);
  }
}

describe("the height probe beside a node writing its database", () => {
  let home: string;
  let dir: string;
  let writer: Writer | undefined;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "visor-probe-"));
    dir = join(home, "data", "blockstore.db");
    mkdirSync(join(home, "data"));
  });
  afterEach(async () => {
    if (writer && writer.proc.exitCode === null && writer.proc.signalCode === null) {
      writer.proc.kill("SIGKILL");
      await writer.exited;
    }
    rmSync(home, { recursive: true, force: true });
  });

  it("never writes into the node's files: the writer lives on, keeps every key, and answers only move forward", async () => {
    writer = new Writer(dir);
    await writer.answer("ready");
    let last = 0;
    for (let i = 0; i < 300; i++) {
      const { height } = await readHomeHeight(home, join(home, "data", ".visor-height-probe"));
      // Asked after the probe answered, so it counts every write the snapshot could have seen.
      const written = await writer.answer("written", "written");
      expect(height).toBeLessThanOrEqual(written);
      expect(height).toBeGreaterThanOrEqual(last);
      last = height;
    }
    const stopped = await writer.answer("stopped", "stop");
    expect(await writer.exited).toMatchObject({ code: 0, signal: null });
    expect(last).toBeGreaterThan(0);

    const db = new ClassicLevel<string, Uint8Array>(dir, { valueEncoding: "view" });
    await db.open();
    try {
      const keys = Array.from({ length: stopped }, (_, i) => `k${i + 1}`);
      const values = await db.getMany(keys);
      const wrong = keys.filter((k, i) => Buffer.from(values[i] ?? []).toString() !== k.slice(1));
      expect(wrong).toEqual([]);
      expect(decodeBlockStoreState((await db.get("blockStore"))!)).toBe(stopped);
    } finally {
      await db.close();
    }
  }, 180_000);
});

/** CometBFT's BlockStoreState{base = 1, height = 2}. */
const blockStore = (height: number) =>
  new BinaryWriter().uint32(0x08).uint32(1).uint32(0x10).uint64(height).finish();

/** Numbers of the files of a kind in a LevelDB folder. */
const numbered = (dir: string, ext: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(`.${ext}`))
    .map((f) => Number.parseInt(f, 10))
    .sort((a, b) => a - b);

/** A database written until it has flushed and compacted tables, its last writes still only in its log. */
async function writtenStore(dir: string, heights: number): Promise<ClassicLevel<string, Uint8Array>> {
  const db = new ClassicLevel<string, Uint8Array>(dir, { valueEncoding: "view", writeBufferSize: 64 * 1024 });
  await db.open();
  for (let h = 1; h <= heights; h++)
    await db.batch([
      { type: "put", key: "blockStore", value: blockStore(h) },
      { type: "put", key: `filler${h % 32}`, value: new Uint8Array(2048).fill(h % 251) },
    ]);
  return db;
}

describe("what the probe puts in its scratch folder", () => {
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "visor-scratch-"));
    mkdirSync(join(home, "data"));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it("never links a table the manifest does not name yet: one the node is still writing keeps its bytes", async () => {
    const dir = join(home, "data", "blockstore.db");
    // Closed, so that its own clean-up does not remove the files planted below; its last writes stay in its log.
    await (await writtenStore(dir, 200)).close();
    // Tables a flush or compaction of the node is writing: numbered from the manifest's next file number on,
    // where the probe's own recovery numbers the table it makes from the log.
    const next = Math.max(...numbered(dir, "ldb"), ...numbered(dir, "log")) + 1;
    const inProgress = Array.from({ length: 6 }, (_, i) =>
      join(dir, `${String(next + i).padStart(6, "0")}.ldb`),
    );
    for (const f of inProgress) writeFileSync(f, `the node's table ${f}, half written`);
    expect(await readHomeHeight(home, join(home, "data", ".visor-height-probe"))).toMatchObject({
      height: 200,
    });
    for (const f of inProgress) {
      expect(readFileSync(f, "utf8")).toBe(`the node's table ${f}, half written`);
      expect(statSync(f).nlink).toBe(1);
    }
  });

  it("stays on the databases' file system: tables are linked, not copied, when data/ is a file system of its own", async () => {
    // /dev/shm is a tmpfs, another file system than the temporary folder on most machines.
    const elsewhere = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "visor-data-"));
    try {
      rmSync(join(home, "data"), { recursive: true });
      symlinkSync(elsewhere, join(home, "data"));
      const layout = new VisorLayout({ home, name: "fake", disableRecase: false });
      const dir = join(layout.dataDir, "blockstore.db");
      // Closed, so that no compaction removes a table between the probe's link and the look below.
      await (await writtenStore(dir, 200)).close();
      // Looked at while the probe's copy opens (its first await comes after the snapshot). The copy's LevelDB
      // works meanwhile in its own thread: it adds tables of its own (numbered from the manifest's next file
      // number on, so a leftover table the manifest does not name may share a name) and may drop compacted
      // ones. Only the tables the manifest names are the node's, and those must be links.
      const current = readFileSync(join(dir, "CURRENT"), "utf8").trim();
      const live = new Set(readManifest(readFileSync(join(dir, current)), current).tables);
      const shared: boolean[] = [];
      setImmediate(() => {
        for (const f of readdirSync(dir).filter(
          (n) => n.endsWith(".ldb") && live.has(Number.parseInt(n, 10)),
        )) {
          const copy = statSync(join(layout.heightProbeDir, f), { throwIfNoEntry: false });
          if (copy) shared.push(copy.ino === statSync(join(dir, f)).ino);
        }
      });
      expect(await readHomeHeight(home, layout.heightProbeDir)).toMatchObject({ height: 200 });
      expect(shared.length).toBeGreaterThan(0);
      expect(shared.every(Boolean)).toBe(true);
      expect(existsSync(layout.heightProbeDir)).toBe(false);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("is left out of data backups", () => {
    const data = join(home, "data");
    mkdirSync(join(data, "blockstore.db"));
    writeFileSync(join(data, "blockstore.db", "000005.ldb"), "table");
    mkdirSync(join(data, ".visor-height-probe"));
    linkSync(join(data, "blockstore.db", "000005.ldb"), join(data, ".visor-height-probe", "000005.ldb"));
    const { dir } = backupData(data, join(home, "backups"), { keep: 1 }, { logger: silentLogger });
    expect(readdirSync(dir).sort()).toEqual(["blockstore.db"]);
  });

  it("left behind by a visor that died mid-probe is removed when visor starts", async () => {
    const h = visorHome();
    try {
      expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
      // Where docs/OPERATIONS.md says the probe works: beside the databases.
      const leftover = join(h.home, "data", ".visor-height-probe");
      mkdirSync(leftover, { recursive: true });
      writeFileSync(join(leftover, "000005.ldb"), "a table kept alive by its link");
      const v = h.start(["start"]);
      await v.waitFor(/v1 running from height/);
      expect(existsSync(leftover)).toBe(false);
      v.proc.kill("SIGTERM");
      expect(await v.exit()).toBe(0);
    } finally {
      h.cleanup();
    }
  });
});

/** LevelDB's log format: records cut at 32 KiB blocks (checksums left 0: the reader leaves them to LevelDB). */
function logFile(records: Uint8Array[]): Buffer {
  const out: number[] = [];
  for (const r of records) {
    let at = 0;
    let first = true;
    do {
      let left = 32768 - (out.length % 32768);
      if (left < 7) {
        out.push(...new Array(left).fill(0));
        left = 32768;
      }
      const n = Math.min(r.length - at, left - 7);
      const last = at + n === r.length;
      const type = first && last ? 1 : first ? 2 : last ? 4 : 3;
      out.push(0, 0, 0, 0, n & 0xff, n >> 8, type, ...r.subarray(at, at + n));
      at += n;
      first = false;
    } while (at < r.length);
  }
  return Buffer.from(out);
}

/** A VersionEdit: `fields` are [tag, ...values] with LevelDB's encodings. */
function edit(...fields: [number, ...(number | Uint8Array)[]][]): Uint8Array {
  const w = new BinaryWriter();
  for (const [tag, ...values] of fields) {
    w.uint32(tag);
    for (const v of values) typeof v === "number" ? w.uint64(v) : w.bytes(v);
  }
  return w.finish();
}
const key = new Uint8Array(9);
const newFile = (level: number, n: number): [number, ...(number | Uint8Array)[]] => [
  7,
  level,
  n,
  1000,
  key,
  key,
];

describe("reading a LevelDB manifest", () => {
  it("finds exactly the tables a real LevelDB lists as live, after flushes and compactions", async () => {
    const root = mkdtempSync(join(tmpdir(), "visor-manifest-"));
    const dir = join(root, "db");
    const db = await writtenStore(dir, 400);
    try {
      // A full manual compaction waits for the work it starts and leaves none to do: the manifest on disk is
      // the version LevelDB serves.
      await db.compactRange("\u0000", "\uffff");
      const listed = [...db.getProperty("leveldb.sstables").matchAll(/^\s*(\d+):\d+\[/gm)].map((m) =>
        Number(m[1]),
      );
      const name = readFileSync(join(dir, "CURRENT"), "utf8").trim();
      const state = readManifest(readFileSync(join(dir, name)), name);
      expect(listed.length).toBeGreaterThan(0);
      expect(state.tables).toEqual(listed.sort((a, b) => a - b));
      expect(numbered(dir, "log")).toContain(state.logNumber);
      expect(state.nextFile).toBeGreaterThan(Math.max(...numbered(dir, "ldb"), ...numbered(dir, "log")));
    } finally {
      await db.close();
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("applies edits in order across fragmented records, and stops at a record its writer had not finished", () => {
    const bytes = logFile([
      edit([1, new TextEncoder().encode("leveldb.BytewiseComparator")], [2, 3], [3, 10], [4, 99]),
      edit(newFile(0, 5), newFile(0, 6), newFile(1, 7)),
      // Larger than a block: FIRST, MIDDLE, LAST fragments.
      edit([5, 1, new Uint8Array(70_000)], [6, 0, 5], newFile(1, 8), [3, 11]),
      // A trivial move: deleted from level 1 and added to level 2 in one edit.
      edit([6, 1, 7], newFile(2, 7), [2, 9]),
    ]);
    const torn = Buffer.concat([bytes, Buffer.from([0, 0, 0, 0, 100, 0, 1, 7, 2])]);
    expect(readManifest(torn, "MANIFEST-000002")).toEqual({
      tables: [6, 7, 8],
      logNumber: 9,
      prevLogNumber: 0,
      nextFile: 11,
    });
  });

  it("refuses what it cannot trust instead of guessing", () => {
    const name = "MANIFEST-000002";
    expect(() => readManifest(logFile([edit([2, 3], [3, 10], newFile(0, 10))]), name)).toThrow(
      /table 10 is not below the next file number 10/,
    );
    expect(() => readManifest(logFile([edit([2, 3], [3, 10], [8, 1])]), name)).toThrow(/unknown tag 8/);
    expect(() => readManifest(logFile([edit([2, 3])]), name)).toThrow(/no next file number/);
    expect(() => readManifest(logFile([edit([2, 3], [3, 10], newFile(0, 4)).subarray(0, 6)]), name)).toThrow(
      /does not decode/,
    );
    const badType = logFile([edit([2, 3], [3, 10])]);
    badType[6] = 9;
    expect(() => readManifest(badType, name)).toThrow(/unexpected record type 9/);
  });
});
