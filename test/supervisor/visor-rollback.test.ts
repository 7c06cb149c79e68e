import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeNodeApi } from "./fake-node-api.js";
import { fakeBinary, visorHome, writeNodeIdentity } from "./visor-home.js";

/** Every file under `dir` (relative path -> SHA-256 of its bytes), sub-folders included. */
function hashTree(dir: string, base = dir, out = new Map<string, string>()): Map<string, string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) hashTree(p, base, out);
    else out.set(relative(base, p), createHash("sha256").update(readFileSync(p)).digest("hex"));
  }
  return out;
}

/** Writes a notification command that appends each event (its stdin) to `file`. */
function recordingNotifier(root: string, file: string): string {
  const script = join(root, "notify.sh");
  writeFileSync(script, `#!/bin/sh\ncat >> '${file}'\n`, { mode: 0o755 });
  return script;
}

const eventsIn = (file: string) =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { event: string; upgrade: string; height: number; details: object })
    : [];

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
  expect(done()).toBe(true);
}

describe("visor: rolling back an upgrade whose new binary never commits a block", () => {
  let h: ReturnType<typeof visorHome>;
  let v1: string;
  let v2: string;

  beforeEach(async () => {
    h = visorHome();
    v1 = fakeBinary(h.root, "v1");
    v2 = fakeBinary(h.root, "v2");
    expect((await h.visor(["init", v1])).exitCode).toBe(0);
  });
  afterEach(() => h.cleanup());

  /**
   * The old binary halts at height 5 for plan v2 while visor is not running (the next `visor run` applies it
   * before launching anything), keeping its heights in a real LevelDB block store; v2 is installed by hand.
   */
  async function haltForV2(env: Record<string, string> = {}) {
    const halt = await execa(join(h.home, "cosmovisor/genesis/bin/fake"), ["start"], {
      env: { ...h.env, FAKE_HALTS: "v1:5:v2", FAKE_BLOCKSTORE: "proto", ...env },
      reject: false,
    });
    expect(halt.exitCode, halt.stdout).toBe(1);
    expect(halt.stdout).toContain('UPGRADE "v2" NEEDED at height: 5');
    const add = await h.visor(["add-upgrade", "v2", v2]);
    expect(add.exitCode, add.all).toBe(0);
  }

  const current = () => readlinkSync(join(h.home, "cosmovisor/current"));
  const status = () => JSON.parse(readFileSync(join(h.home, "cosmovisor/visor-status.json"), "utf8"));

  it("after VISOR_ROLLBACK_AFTER_FAILURES crashes: data byte-identical to before the upgrade, current back, recorded, exit 70", async () => {
    await haltForV2();
    const before = hashTree(join(h.home, "data"));
    expect([...before.keys()]).toContain("blockstore.db/CURRENT");
    const events = join(h.root, "events.jsonl");
    const env = {
      FAKE_CRASH: "v2",
      FAKE_BLOCKSTORE: "proto",
      VISOR_NOTIFY_CMD: recordingNotifier(h.root, events),
    };

    const v = h.start(["start"], env);
    expect(await v.exit(60_000)).toBe(70);
    expect(v.lines.filter((l) => /starting daemon/.test(l))).toHaveLength(3);
    expect(v.output.match(/panic: v2: store migration failed/g)).toHaveLength(3);
    const reason = v.lines.filter((l) => l.startsWith("Error: "));
    expect(reason).toHaveLength(1);
    expect(reason[0]).toMatch(
      /^Error: upgrade v2 rolled back: the new binary exited non-zero 3 times \(last status 2\) before committing a block above height 5; data restored from .*data-backup-.*, current -> genesis$/,
    );

    expect(hashTree(join(h.home, "data"))).toEqual(before);
    expect(current()).toBe("genesis");
    const failed = readdirSync(h.home).filter((f) => f.startsWith("data.failed-"));
    expect(failed).toHaveLength(1);
    expect(
      readdirSync(join(h.home, failed[0]))
        .filter((f) => f.startsWith("crash-"))
        .sort(),
    ).toEqual(["crash-1", "crash-2", "crash-3"]);
    const s = status();
    expect(s.trial).toBeNull();
    expect(s.last_upgrade).toMatchObject({ plan: "v2", height: 5, result: "rolled_back" });
    expect(s.last_rollback).toMatchObject({ plan: "v2", height: 5, current: "genesis" });
    expect(s.last_rollback.failed_data).toBe(join(h.home, failed[0]));

    const seen = eventsIn(events);
    expect(seen.map((e) => e.event)).toEqual([
      "detected",
      "switched",
      "pre_upgrade_done",
      "restarted",
      "failed",
      "restarted",
      "failed",
      "restarted",
      "failed",
      "rolled_back",
    ]);
    for (const e of seen) expect(e).toMatchObject({ upgrade: "v2", height: 5 });
    expect(seen[4].details).toMatchObject({ step: "first_block", exit_status: 2, failures: 1, limit: 3 });
    expect(seen[9].details).toMatchObject({ current: "genesis" });

    // Started again as is, visor neither re-applies the broken binary nor runs the old one into its halt.
    const again = h.start(["start"], env);
    expect(await again.exit()).toBe(70);
    expect(again.output).not.toContain("starting daemon");
    expect(again.output).toContain(
      "Error: upgrade v2 was rolled back (the new binary exited non-zero 3 times",
    );
    expect(again.output).toContain("visor add-upgrade v2 <binary> --force");
    const byHand = await h.visor(["rollback"]);
    expect(byHand.exitCode).toBe(1);
    expect(byHand.stderr.trim()).toBe("Error: nothing to roll back: upgrade v2 was already rolled back");

    // A marker that cannot be read cannot clear the binary beside it: visor refuses rather than run it.
    const marker = join(h.home, "cosmovisor", "upgrades", "v2", ".visor-rolled-back.json");
    const record = readFileSync(marker, "utf8");
    writeFileSync(marker, "{ cut short");
    const unreadable = h.start(["start"], env);
    expect(await unreadable.exit()).toBe(70);
    expect(unreadable.output).not.toContain("starting daemon");
    expect(unreadable.output).toContain(
      `Error: upgrade v2 was rolled back, but its marker ${marker} cannot be read`,
    );
    writeFileSync(marker, record);

    // A fixed binary for the plan is applied, and its first block above the height ends the trial.
    const fixedBinary = join(h.root, "fake-v2-fixed");
    writeFileSync(fixedBinary, `${readFileSync(v2, "utf8")}\n// the fixed release\n`, { mode: 0o755 });
    expect((await h.visor(["add-upgrade", "v2", fixedBinary, "--force"])).exitCode).toBe(0);
    const fixed = h.start(["start"], { ...env, FAKE_CRASH: "" });
    await fixed.waitFor(/first block after the upgrade/);
    expect(status().trial).toBeNull();
    expect(current()).toBe("upgrades/v2");
    fixed.proc.kill("SIGTERM");
    expect(await fixed.exit()).toBe(0);
    expect(eventsIn(events).at(-1)).toMatchObject({ event: "first_block", upgrade: "v2" });
  }, 180_000);

  it("visor rollback by hand: refuses while nothing is on trial or the daemon runs; keeps the newer priv_validator_state.json", async () => {
    const pvs = join(h.home, "data", "priv_validator_state.json");
    mkdirSync(join(h.home, "data"));
    writeFileSync(pvs, JSON.stringify({ height: "4", round: 0, step: 3 }));
    await haltForV2();
    const before = hashTree(join(h.home, "data"));
    const nothing = await h.visor(["rollback"]);
    expect(nothing.exitCode).toBe(1);
    expect(nothing.stderr.trim()).toBe(
      "Error: nothing to roll back: visor has not switched to a new binary that is still waiting for its first block",
    );

    // With automatic rollback off, the crash is the daemon's status, and the upgrade stays on trial.
    const crashed = h.start(["start"], { FAKE_CRASH: "v2", VISOR_ROLLBACK_AFTER_FAILURES: "0" });
    expect(await crashed.exit()).toBe(2);
    expect(current()).toBe("upgrades/v2");
    expect(status().trial).toMatchObject({ plan: "v2", height: 5, previous: "genesis" });
    const signed = readFileSync(pvs, "utf8");
    expect(JSON.parse(signed).height).toBe("5");

    // v2 running (its height unreadable to visor: no block store, no API) may not be rolled back under it.
    const running = h.start(["start"]);
    await running.waitFor(/v2 height/);
    expect(readFileSync(join(h.home, "cosmovisor", "visor.pid"), "utf8").trim()).toBe(
      String(running.proc.pid),
    );
    const refused = await h.visor(["rollback"]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(
      /^Error: visor \(pid \d+, recorded in \S+visor\.pid\) still runs on .*: stop it first, then run visor rollback$/m,
    );

    // A visor killed with SIGKILL leaves its pid file and its daemon behind: the daemon still refuses a rollback.
    running.proc.kill("SIGKILL");
    const visorPid = running.proc.pid as number;
    await until(() => !pidExists(visorPid));
    const orphan = status().child_pid as number;
    const refusedOrphan = await h.visor(["rollback"]);
    expect(refusedOrphan.exitCode).toBe(1);
    expect(refusedOrphan.stderr).toMatch(/^Error: the daemon \(pid \d+\) still runs on .*: stop visor first/);
    process.kill(orphan, "SIGTERM");
    await running.exit();
    await until(() => !pidExists(orphan) || readFileSync(`/proc/${orphan}/stat`, "utf8").includes(") Z"));

    const done = await h.visor(["rollback"]);
    expect(done.exitCode, done.all).toBe(0);
    expect(done.stdout.trim()).toMatch(
      /^upgrade v2 rolled back: rolled back by hand \(visor rollback\); data restored from .*, current -> genesis$/,
    );
    expect(current()).toBe("genesis");
    const after = hashTree(join(h.home, "data"));
    // Everything as before the upgrade, but the record of what the validator signed, which only moves forward.
    expect(after.get("priv_validator_state.json")).not.toBe(before.get("priv_validator_state.json"));
    expect(readFileSync(pvs, "utf8")).toBe(signed);
    after.delete("priv_validator_state.json");
    before.delete("priv_validator_state.json");
    expect(after).toEqual(before);
  }, 180_000);

  it("a visor killed in the middle of a rollback (no data folder at all) finishes it at its next start", async () => {
    await haltForV2();
    const before = hashTree(join(h.home, "data"));
    const killed = h.start(["start"], { FAKE_CRASH: "v2", VISOR_CRASH_AT: "rollback" });
    await killed.exit(60_000);
    expect((await killed.proc).signal).toBe("SIGKILL");
    expect(existsSync(join(h.home, "data"))).toBe(false);
    expect(existsSync(join(h.home, "data.rollback"))).toBe(true);
    const [setAside] = readdirSync(h.home).filter((f) => f.startsWith("data.failed-"));

    // A clone whose journal names another backup is refused, not restored.
    const journal = join(h.home, "data.rollback", ".visor-rollback.json");
    const written = readFileSync(journal, "utf8");
    writeFileSync(journal, JSON.stringify({ ...JSON.parse(written), backup: "/elsewhere/data-backup-x" }));
    const wrong = h.start(["start"]);
    expect(await wrong.exit(60_000)).toBe(1);
    expect(wrong.output).not.toContain("starting daemon");
    expect(wrong.output).toContain("holds another backup (/elsewhere/data-backup-x); move it away");
    expect(existsSync(join(h.home, "data"))).toBe(false);
    writeFileSync(journal, written);

    const next = h.start(["start"]);
    expect(await next.exit(60_000)).toBe(70);
    expect(next.output).not.toContain("starting daemon");
    expect(next.output).toMatch(/Error: upgrade v2 rolled back: the new binary exited non-zero 3 times/);
    expect(hashTree(join(h.home, "data"))).toEqual(before);
    expect(existsSync(join(h.home, "data.rollback"))).toBe(false);
    expect(current()).toBe("genesis");
    expect(status().trial).toBeNull();
    // Where the data folder was set aside before the kill is still known.
    expect(status().last_rollback.failed_data).toBe(join(h.home, setAside));
  });

  it("with neither a block store nor a node API, crashes are counted but visor never rolls back by itself", async () => {
    await haltForV2({ FAKE_BLOCKSTORE: "" });
    expect(existsSync(join(h.home, "data", "blockstore.db"))).toBe(false);
    const before = hashTree(join(h.home, "data"));
    const v = h.start(["start"], { FAKE_CRASH: "v2" });
    expect(await v.exit(60_000)).toBe(2);
    expect(v.output).toContain(
      "the new binary exited non-zero 3 times, but visor cannot tell whether it committed or signed a block above height 5 (the home's own block store or its sign state cannot be read; a node API's word is not proof): not rolling back by itself; \"visor rollback\" restores",
    );
    expect(current()).toBe("upgrades/v2");
    expect(status().trial).toMatchObject({ plan: "v2", failures: 3, last_exit: 2 });
    // Nothing restored: what the new binary wrote stays, and no data folder was set aside.
    expect(hashTree(join(h.home, "data"))).not.toEqual(before);
    expect(readdirSync(h.home).filter((f) => f.startsWith("data."))).toEqual([]);

    // Nor at the next start, where the counted failures would otherwise finish the rollback.
    const again = h.start(["start"], { FAKE_CRASH: "v2" });
    expect(await again.exit(60_000)).toBe(2);
    expect(again.output).toContain("visor cannot tell whether it committed or signed a block above height 5");
    expect(current()).toBe("upgrades/v2");
    expect(readdirSync(h.home).filter((f) => f.startsWith("data."))).toEqual([]);
  });

  it("an impostor on the node's port answering a height at the upgrade's is no proof: no block store, no rollback", async () => {
    await haltForV2({ FAKE_BLOCKSTORE: "" });
    // A server that passes the identity check (node and chain ids are public) and claims the halt height.
    const impostor = await FakeNodeApi.start({ home: h.home, identity: writeNodeIdentity(h.home) });
    impostor.height = () => 5;
    try {
      const v = h.start(["start"], { FAKE_CRASH: "v2", VISOR_RPC_ADDRESS: impostor.url });
      expect(await v.exit(60_000)).toBe(2);
      expect(impostor.requests).toBeGreaterThan(0);
      expect(v.output).toContain("visor cannot tell whether it committed or signed a block above height 5");
      expect(current()).toBe("upgrades/v2");
      expect(readdirSync(h.home).filter((f) => f.startsWith("data."))).toEqual([]);
    } finally {
      await impostor.close();
    }
  });

  it("a validator that signed above the upgrade height is never rolled back under: the trial ends", async () => {
    mkdirSync(join(h.home, "data"));
    const pvs = join(h.home, "data", "priv_validator_state.json");
    writeFileSync(pvs, JSON.stringify({ height: "5", round: 0, step: 3 }));
    await haltForV2();
    const before = hashTree(join(h.home, "data"));
    // Each crash of the fake v2 advances the sign state by one: the first one signs height 6.
    const v = h.start(["start"], { FAKE_CRASH: "v2" });
    expect(await v.exit(60_000)).toBe(2);
    expect(v.output).toMatch(/first block after the upgrade .*from="?the validator's sign state/);
    expect(current()).toBe("upgrades/v2");
    expect(status().trial).toBeNull();
    expect(JSON.parse(readFileSync(pvs, "utf8")).height).toBe("6");
    expect(hashTree(join(h.home, "data"))).not.toEqual(before);
    expect(readdirSync(h.home).filter((f) => f.startsWith("data."))).toEqual([]);
    const byHand = await h.visor(["rollback"]);
    expect(byHand.exitCode).toBe(1);
  });

  it("with UNSAFE_SKIP_BACKUP there is nothing to restore: visor says so and exits with the daemon's status", async () => {
    await haltForV2();
    const v = h.start(["start"], { FAKE_CRASH: "v2", UNSAFE_SKIP_BACKUP: "true" });
    expect(await v.exit(60_000)).toBe(2);
    expect(v.output).toMatch(
      /before committing a block above height 5; cannot roll back: no data backup was made before the upgrade \(UNSAFE_SKIP_BACKUP=true\)/,
    );
    expect(current()).toBe("upgrades/v2");
    const byHand = await h.visor(["rollback"]);
    expect(byHand.exitCode).toBe(1);
    expect(byHand.stderr.trim()).toMatch(
      /^Error: cannot roll back upgrade v2: no data backup was made before it \(UNSAFE_SKIP_BACKUP=true\)/,
    );
  });
});
