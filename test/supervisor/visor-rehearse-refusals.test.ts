import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Level } from "level";
import { afterEach, describe, expect, it } from "vitest";
import { fakeBinary, visorHome } from "./visor-home.js";

const homes: ReturnType<typeof visorHome>[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) h.cleanup();
});

async function initialized() {
  const h = visorHome();
  homes.push(h);
  const init = await h.visor(["init", fakeBinary(h.root, "v1")]);
  expect(init.exitCode, init.all).toBe(0);
  return h;
}

/** What `visor rehearse` must leave in its folder after a refusal: at most its lock, never a copy. */
const leftovers = (home: string) => {
  const dir = join(home, "cosmovisor", "rehearsal");
  return existsSync(dir) ? readdirSync(dir).filter((f) => f !== "lock") : [];
};

describe("visor rehearse refuses, exit 2 and one line, what it cannot rehearse", () => {
  it("without a node that answers: it copies only a running node", async () => {
    const h = await initialized();
    const r = await h.visor(["rehearse"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /^Error: cannot ask the node for its plan and height \(a rehearsal copies a running node\): /,
    );
    expect(leftovers(h.home)).toEqual([]);
  });

  it("when the disk has no room for what the copy may write, before asking the node anything", async () => {
    const h = await initialized();
    const db = join(h.home, "data", "application.db");
    mkdirSync(db, { recursive: true });
    // Sparse tables of 60 TiB in all (ext4 takes 16 TiB a file): a quarter of it fits on no disk here, and
    // they take no space.
    for (let i = 1; i <= 4; i++) {
      const fd = openSync(join(db, `00000${i}.ldb`), "w");
      ftruncateSync(fd, 15 * 1024 ** 4);
      closeSync(fd);
    }
    const r = await h.visor(["rehearse"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /^Error: not enough free space for a rehearsal: .* has .* free, and .* are needed/,
    );
    expect(leftovers(h.home)).toEqual([]);
  });

  it("while another rehearsal runs on the home", async () => {
    const h = await initialized();
    mkdirSync(join(h.home, "cosmovisor", "rehearsal"), { recursive: true });
    const held = new Level(join(h.home, "cosmovisor", "rehearsal", "lock"));
    await held.open();
    try {
      const r = await h.visor(["rehearse"]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toBe(`Error: another rehearsal runs on ${h.home}`);
    } finally {
      await held.close();
    }
  });

  it("bad flags, exit 1", async () => {
    const h = await initialized();
    const blocks = await h.visor(["rehearse", "--blocks", "0"]);
    expect(blocks.exitCode).toBe(1);
    expect(blocks.stderr).toBe("Error: invalid --blocks 0: a whole number from 1");
    const timeout = await h.visor(["rehearse", "--timeout", "soon"]);
    expect(timeout.exitCode).toBe(1);
    expect(timeout.stderr).toMatch(/^Error: invalid --timeout "soon": /);
  });
});
