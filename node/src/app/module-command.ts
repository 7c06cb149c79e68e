import type { CommandModule } from "yargs";
import type { HomeArgs } from "./home-args.js";
import type { TypeRegistry } from "./type-registry.js";

/** What a module builds its commands from: no node or store is needed to list or parse them. */
export interface ModuleCliContext {
  /** Every type the app knows, for packing messages into Any and printing answers as JSON. */
  readonly types: TypeRegistry;
}

/**
 * A command a module adds to the command line: `tx <module> ...`, `query <module> ...` or `genesis ...`. It
 * receives the global flags (at least --home); the arguments it parses further are its own.
 */
// biome-ignore lint/suspicious/noExplicitAny: each command types its own arguments; the CLI only mounts it
export type ModuleCommand = CommandModule<HomeArgs, any>;
