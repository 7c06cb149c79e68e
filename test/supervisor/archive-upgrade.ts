import { mkdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LineCollector } from "@chaind/harness/line-collector";
import { ReleaseServer } from "@chaind/harness/release-server";
import { execa } from "execa";
import { fakeBinary, VISOR, visorHome } from "./visor-home.js";

/** What a test serves on the loopback release server, and how plan info names it. */
export interface Served {
  url: (name: string) => string;
  put: (name: string, bytes: Buffer | string) => string;
}

export interface ArchiveUpgrade {
  /** The release artifact made of the new binary's bytes. */
  release: (binary: Buffer) => Buffer | Promise<Buffer>;
  /** The served file name (a release's real name; visor goes by content). */
  fileName: string;
  /** Plan.info naming the served artifact (inline JSON or a URL to a document), with its checksum. */
  planInfo: (served: Served, artifact: Buffer) => string;
  env?: Record<string, string>;
  /** visor as another executable (the released bundle), run with only these variables besides the home's. */
  visor?: { file: string; env: Record<string, string> };
}

export interface ArchiveUpgradeResult {
  code: number;
  output: string;
  current: string;
  /** Every command the new binary ran, one a line: empty when it never ran. */
  ran: string;
}

/**
 * A foreign daemon (the fake daemon, not chaind) under visor: v1 halts at height 3 for plan v2, whose binary
 * the release server offers as `release` makes it. The v2 binary notes every run in $DAEMON_HOME/ran-v2, so a
 * test can tell it never ran. Answers once v2 runs (then stopped) or visor has given up.
 */
export async function upgradeForeignDaemon(opts: ArchiveUpgrade): Promise<ArchiveUpgradeResult> {
  const h = visorHome();
  const dir = join(h.root, "served");
  mkdirSync(dir);
  const server = await ReleaseServer.start({ dir });
  try {
    const init = await h.visor(["init", fakeBinary(h.root, "v1")]);
    if (init.exitCode !== 0) throw new Error(init.all);
    const v2 = fakeBinary(h.root, "v2");
    const marked = readFileSync(v2, "utf8").replace(
      /\n/,
      '\nrequire("node:fs").appendFileSync(require("node:path").join(process.env.DAEMON_HOME, "ran-v2"), process.argv.slice(2).join(" ") + "\\n");\n',
    );
    const artifact = await opts.release(Buffer.from(marked));
    const served: Served = {
      url: (name) => server.fileUrl(name),
      put: (name, bytes) => {
        writeFileSync(join(dir, name), bytes);
        return server.fileUrl(name);
      },
    };
    served.put(opts.fileName, artifact);
    const env = {
      ...h.env,
      FAKE_HALTS: "v1:3:v2",
      FAKE_INFO: opts.planInfo(served, artifact),
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
      UNSAFE_SKIP_BACKUP: "true",
      ...opts.env,
      ...opts.visor?.env,
    };
    const proc = opts.visor
      ? execa(opts.visor.file, ["run", "start"], {
          env,
          extendEnv: false,
          reject: false,
          all: true,
          buffer: false,
        })
      : execa("node", [VISOR, "run", "start"], { env, reject: false, all: true, buffer: false });
    const out = new LineCollector(proc.all!);
    const upgraded = await out.waitFor(/v2 running|^Error: /m, 30_000).then(
      (m) => m[0] !== "Error: ",
      () => false,
    );
    if (upgraded) proc.kill("SIGTERM");
    const killer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
    const r = await proc;
    clearTimeout(killer);
    let ran = "";
    try {
      ran = readFileSync(join(h.home, "ran-v2"), "utf8");
    } catch {}
    return {
      code: r.exitCode ?? -1,
      output: out.lines.join("\n"),
      current: readlinkSync(join(h.home, "cosmovisor", "current")),
      ran,
    };
  } finally {
    await server.close();
    h.cleanup();
  }
}
