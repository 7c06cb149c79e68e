import { existsSync, rmSync } from "node:fs";
import { toHexUpper } from "@chaind/core/hex";
import { silentLogger } from "@chaind/core/logger";
import type { Argv, CommandModule } from "yargs";
import { readGenesisRecord } from "../chain/genesis-record.js";
import { genesisTrustedValidators } from "../chain/genesis-validators.js";
import { CliError } from "../client/cli-error.js";
import { SHOW_GROUP_HELP } from "../client/cobra-errors.js";
import { type GenesisDoc, readGenesis } from "../config/genesis.js";
import { readHomeConfig } from "../config/home-config.js";
import { HomeLayout } from "../config/home-layout.js";
import { readPrivValidatorKey } from "../config/priv-validator-key.js";
import { defaultArchiveName, dumpSnapshot, loadSnapshot } from "../snapshots/snapshot-archive.js";
import { exportSnapshot } from "../snapshots/snapshot-export.js";
import { snapshotLine } from "../snapshots/snapshot-metadata.js";
import { type RestoreTrust, restoreSnapshot } from "../snapshots/snapshot-restore.js";
import { SnapshotStore } from "../snapshots/snapshot-store.js";
import { trustedAppHash } from "../snapshots/trusted-app-hash.js";
import { PRUNING_NOTHING, type PruningOptions, pruningOptions } from "../store/pruning.js";
import { StateStore } from "../store/state-store.js";
import type { GlobalArgs } from "./global-options.js";

interface SnapshotIdArgs extends GlobalArgs {
  height: string;
  format: string;
}

/** A positional that must be a whole number from 1, refused in one line otherwise. */
function positiveInt(name: string, raw: string | number | undefined): number {
  const n = /^\d+$/.test(String(raw ?? "")) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new CliError(`${name} must be a positive integer, got ${raw}`);
  return n;
}

/** Runs a step whose failures are the operator's to fix: each becomes one line prefixed with what failed. */
async function step<T>(what: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`${what}: ${(e as Error).message}`);
  }
}

/** The home's state store; the LevelDB lock refuses it while a node runs on this home. */
function openState(home: string, pruning: PruningOptions): Promise<StateStore> {
  return StateStore.open({ dir: new HomeLayout(home).dbDir, pruning }, { logger: silentLogger });
}

const snapshotStore = (home: string) => new SnapshotStore(new HomeLayout(home).snapshotsDir);

const idPositionals = (y: Argv<GlobalArgs>) =>
  y
    .positional("height", { type: "string", describe: "the snapshot's height" })
    .positional("format", { type: "string", describe: "the snapshot's format" }) as never;

const listCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: "list",
  describe: "List local snapshots",
  handler: async (args) => {
    const all = await step("cannot list snapshots", () => snapshotStore(args.home).list());
    for (const m of all) process.stdout.write(`${snapshotLine(m)}\n`);
  },
};

const exportCommand: CommandModule<GlobalArgs, GlobalArgs & { height?: number }> = {
  command: "export",
  describe: "Export app state to snapshot store (the node must be stopped)",
  builder: (y) =>
    y.option("height", {
      type: "number",
      describe: "height to export (default: the latest; an older one must not be pruned)",
    }) as never,
  handler: async (args) => {
    const height = args.height === undefined ? undefined : positiveInt("--height", args.height);
    const meta = await step("cannot export snapshot", async () => {
      const state = await openState(args.home, PRUNING_NOTHING);
      try {
        const chainId =
          (await readGenesisRecord(state))?.chain_id ??
          readGenesis(new HomeLayout(args.home).genesisJson).chain_id;
        return await exportSnapshot(state, snapshotStore(args.home), chainId, height);
      } finally {
        await state.close();
      }
    });
    process.stdout.write(
      `Snapshot created at height ${meta.height}, format ${meta.format}, chunks ${meta.chunks}\n`,
    );
  },
};

/** The snapshot a command names, checked. */
function snapshotId(args: SnapshotIdArgs): { height: number; format: number } {
  return { height: positiveInt("height", args.height), format: positiveInt("format", args.format) };
}

interface RestoreArgs extends SnapshotIdArgs {
  "trusted-app-hash"?: string;
  "trust-node"?: string;
}

/**
 * What the restored state is checked against: the app hash the operator gives, or the one a node they name
 * serves in a header its commit proves (genesis validators signed it), or both when they agree.
 */
async function restoreTrust(args: RestoreArgs, height: number, genesis: GenesisDoc): Promise<RestoreTrust> {
  const given = args["trusted-app-hash"];
  const node = args["trust-node"];
  if (given === undefined && node === undefined)
    throw new CliError(
      `nothing to check the snapshot's state against: give --trusted-app-hash <hex> (the app hash of height ${height}, ` +
        `the app_hash of header ${height + 1} as a node you trust shows it) or --trust-node <rpc address> ` +
        `(a node whose header ${height + 1} is checked against the genesis validators' signatures)`,
    );
  let fromNode: RestoreTrust | undefined;
  if (node !== undefined) {
    const trusted = genesisTrustedValidators(genesis);
    if (trusted.length === 0)
      throw new CliError(
        "the home's genesis names no ed25519 validator to trust: give --trusted-app-hash instead",
      );
    const { appHash, blockId } = await step(`cannot verify header ${height + 1} from ${node}`, () =>
      trustedAppHash(node, height, genesis.chain_id, trusted),
    );
    fromNode = {
      appHash,
      blockId,
      source: `header ${height + 1} of ${node}, signed by the genesis validators`,
    };
  }
  if (given === undefined) return fromNode!;
  if (!/^[0-9A-Fa-f]{64}$/.test(given))
    throw new CliError(`--trusted-app-hash must be 64 hex digits, got ${JSON.stringify(given)}`);
  const appHash = new Uint8Array(Buffer.from(given, "hex"));
  if (fromNode && Buffer.compare(fromNode.appHash, appHash) !== 0)
    throw new CliError(
      `--trusted-app-hash ${given.toUpperCase()} is not the app hash ${toHexUpper(fromNode.appHash)} of ${fromNode.source}`,
    );
  return fromNode ?? { appHash, source: "--trusted-app-hash" };
}

const restoreCommand: CommandModule<GlobalArgs, RestoreArgs> = {
  command: "restore <height> <format>",
  describe: "Restore app state from local snapshot into this fresh home (the node must be stopped)",
  builder: (y) =>
    (idPositionals(y) as Argv<GlobalArgs>)
      .option("trusted-app-hash", {
        type: "string",
        describe: "the app hash the state must have at the snapshot's height (hex), from a source you trust",
      })
      .option("trust-node", {
        type: "string",
        describe:
          "an RPC address whose header above the snapshot, verified against the genesis validators, gives the app hash",
      }) as never,
  handler: async (args) => {
    const { height, format } = snapshotId(args);
    const layout = new HomeLayout(args.home);
    const genesis = await step("cannot restore snapshot", () => readGenesis(layout.genesisJson));
    const trust = await restoreTrust(args, height, genesis);
    const result = await step("cannot restore snapshot", async () => {
      const snapshots = snapshotStore(args.home);
      const meta = snapshots.require(height, format);
      const target = {
        chainId: genesis.chain_id,
        validatorAddress: readPrivValidatorKey(layout.privValidatorKey).address,
      };
      const fresh = !existsSync(layout.dbDir);
      const state = await openState(args.home, pruningOptions(readHomeConfig(layout).app));
      try {
        return await restoreSnapshot(state, snapshots, meta, target, trust);
      } catch (e) {
        await state.close();
        // A refused restore leaves the home as it found it: without a database, if it had none.
        if (fresh) rmSync(layout.dbDir, { recursive: true, force: true });
        throw e;
      } finally {
        await state.close();
      }
    });
    process.stdout.write(
      `Snapshot restored at height ${height}, format ${format}: ${result.items} keys, app hash ${toHexUpper(result.appHash)}\n`,
    );
  },
};

const dumpCommand: CommandModule<GlobalArgs, SnapshotIdArgs & { output?: string }> = {
  command: "dump <height> <format>",
  describe: "Dump the snapshot as portable archive format",
  builder: (y) =>
    (idPositionals(y) as Argv<GlobalArgs>).option("output", {
      alias: "o",
      type: "string",
      describe: "output file (default: <height>-<format>.tar.gz)",
    }) as never,
  handler: async (args) => {
    const { height, format } = snapshotId(args);
    const output = args.output ?? defaultArchiveName(height, format);
    await step("cannot dump snapshot", async () => {
      const snapshots = snapshotStore(args.home);
      await dumpSnapshot(snapshots, snapshots.require(height, format), output);
    });
    process.stdout.write(`${output}\n`);
  },
};

const loadCommand: CommandModule<GlobalArgs, GlobalArgs & { file: string }> = {
  command: "load <file>",
  describe: "Load a snapshot archive file (.tar.gz) into snapshot store",
  builder: (y) => y.positional("file", { type: "string", demandOption: true }) as never,
  handler: async (args) => {
    const meta = await step("cannot load snapshot", () => loadSnapshot(snapshotStore(args.home), args.file));
    process.stdout.write(`${snapshotLine(meta)}\n`);
  },
};

const deleteCommand: CommandModule<GlobalArgs, SnapshotIdArgs> = {
  command: "delete <height> <format>",
  describe: "Delete a local snapshot",
  builder: idPositionals,
  handler: async (args) => {
    const { height, format } = snapshotId(args);
    await step("cannot delete snapshot", () => snapshotStore(args.home).delete(height, format));
  },
};

/** `chaind snapshots ...`: state snapshots in data/snapshots/, as Cosmos SDK 0.50's command of that name. */
export const snapshotsCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: "snapshots",
  describe: "Manage local snapshots",
  builder: (y) =>
    y
      .command(listCommand)
      .command(exportCommand as never)
      .command(restoreCommand as never)
      .command(dumpCommand as never)
      .command(loadCommand as never)
      .command(deleteCommand as never)
      .demandCommand(1, SHOW_GROUP_HELP) as never,
  handler: () => {},
};
