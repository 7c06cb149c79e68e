import type { DescFile } from "@bufbuild/protobuf";
import type { AminoType } from "./amino-types.js";
import type { ConsensusValidator } from "./consensus-validators.js";
import type { Context } from "./context.js";
import type { ModuleCliContext, ModuleCommand } from "./module-command.js";
import type { ServiceRegistrar } from "./service-registrar.js";
import type { TestnetConversion } from "./testnet-conversion.js";

/** A migration step: moves a module's state from version `from` to `from + 1`. */
export type Migration = (ctx: Context) => Promise<void>;

/**
 * What a module declares to the app. Everything is explicit: stores it owns, genesis, block hooks, services,
 * consensus version and the migrations that reach it.
 */
export interface AppModule {
  readonly name: string;
  readonly consensusVersion: number;
  /** Names of the stores this module owns. */
  readonly storeKeys: readonly string[];
  /** Proto files whose messages this module packs into Any or renders as JSON. */
  readonly protoFiles: readonly DescFile[];
  /** Amino JSON of the module's messages (SIGN_MODE_LEGACY_AMINO_JSON): one entry a message or field type. */
  readonly aminoTypes?: readonly AminoType[];
  defaultGenesis?(): unknown;
  /** Throws a clear error when the module's genesis section is unusable. */
  validateGenesis?(state: unknown): void;
  initGenesis?(ctx: Context, state: unknown): Promise<void>;
  exportGenesis?(ctx: Context): Promise<unknown>;
  preBlock?(ctx: Context): Promise<void>;
  /** Whether this binary's preBlock will halt the node at the block `ctx` names (read on committed state). */
  haltsAt?(ctx: Context): Promise<boolean>;
  beginBlock?(ctx: Context): Promise<void>;
  endBlock?(ctx: Context): Promise<void>;
  /**
   * The validator set consensus should run with, as the state in `ctx` has it (staking's bonded validators): the
   * App answers it at InitChain and each block's changes to it as validator updates. One module provides it.
   */
  consensusValidators?(ctx: Context): Promise<ConsensusValidator[]>;
  registerServices?(registrar: ServiceRegistrar): void;
  /** `in-place-testnet`: changes the module's state so one operator and one validator key can drive the chain. */
  convertToTestnet?(ctx: Context, t: TestnetConversion): Promise<void>;
  /** Keyed by the version a step starts from. */
  readonly migrations?: Readonly<Record<number, Migration>>;
  /** `<app> tx <name> ...`: the module's transactions, built, signed and broadcast from the command line. */
  txCommand?(ctx: ModuleCliContext): ModuleCommand;
  /** `<app> query <name> ...`: the module's queries against a node. */
  queryCommand?(ctx: ModuleCliContext): ModuleCommand;
  /** Commands the module adds under `<app> genesis`, for building the genesis file (staking's `gentx`). */
  genesisCommands?(ctx: ModuleCliContext): ModuleCommand[];
}
