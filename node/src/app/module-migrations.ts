import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import type { AppModule } from "./app-module.js";
import type { Context } from "./context.js";

/** Module name -> consensus version, as the upgrade module stores it. */
export type ModuleVersionMap = Map<string, bigint>;

/** Cosmos' default migration order: by name, with auth last (others may still read accounts as they were). */
function migrationOrder(modules: readonly AppModule[]): AppModule[] {
  return [...modules].sort((a, b) =>
    a.name === "auth" ? 1 : b.name === "auth" ? -1 : a.name.localeCompare(b.name),
  );
}

/**
 * Brings every module from the version in `fromVM` to its consensus version, one registered step at a time;
 * a module missing from `fromVM` is new and starts from its default genesis. Answers the new version map.
 */
export async function runMigrations(
  ctx: Context,
  modules: readonly AppModule[],
  fromVM: ModuleVersionMap,
): Promise<ModuleVersionMap> {
  for (const m of migrationOrder(modules)) {
    const to = BigInt(m.consensusVersion);
    const from = fromVM.get(m.name);
    if (from === undefined) {
      ctx.logger.info("adding a new module: initializing its genesis", { module: m.name });
      await m.initGenesis?.(ctx, m.defaultGenesis?.());
      continue;
    }
    for (let v = from; v < to; v++) {
      const step = m.migrations?.[Number(v)];
      if (!step)
        throw ChainError.wrap(
          SdkErrors.Logic,
          `no migration found for module ${m.name} from version ${v} to version ${v + 1n}`,
        );
      ctx.logger.info("migrating module", { module: m.name, from: String(v), to: String(v + 1n) });
      await step(ctx);
    }
  }
  return new Map(modules.map((m) => [m.name, BigInt(m.consensusVersion)]));
}
