import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { toHexUpper } from "@chaind/core/hex";
import { type AppConfig, defaultAppConfig, renderAppToml } from "../config/app-config.js";
import { type ClientConfig, defaultClientConfig, renderClientToml } from "../config/client-config.js";
import { defaultConsensusParams, type GenesisDoc, writeGenesis } from "../config/genesis.js";
import { HomeLayout } from "../config/home-layout.js";
import { defaultNodeConfig, type NodeConfig, renderConfigToml } from "../config/node-config.js";
import { writeNewNodeKey } from "../config/node-key.js";
import { writeNewPrivValidatorKey } from "../config/priv-validator-key.js";
import { signStateJson } from "../consensus/sign-state.js";
import type { AppDefinition } from "./app-definition.js";
import { genesisBondDenom } from "./genesis-validators.js";

export interface InitHomeOptions {
  home: string;
  moniker: string;
  chainId: string;
  bech32Prefix: string;
  overwrite: boolean;
  /**
   * app.toml's minimum-gas-prices is this amount of the genesis' bond denom (default INIT_MIN_GAS_PRICE):
   * never empty, as `start` refuses an empty value.
   */
  minGasPrice?: string;
  /** Adjust the defaults before they are written (testnet homes turn listeners on, shorten block time). */
  tuneApp?: (c: AppConfig) => void;
  tuneNode?: (c: NodeConfig) => void;
  tuneClient?: (c: ClientConfig) => void;
}

/**
 * The gas price `chaind init` writes: the "average" step wallets (Keplr) and CosmJS examples offer, so a home
 * checks fees from its first start and ordinary clients still get in.
 */
const INIT_MIN_GAS_PRICE = "0.025";
/** The price of `chaind testnet` homes: small enough for any ordinary fee, yet not zero. */
export const TESTNET_MIN_GAS_PRICE = "0.0001";

export class HomeExistsError extends Error {
  readonly code = "HOME_EXISTS";
}

export class InitHomeError extends Error {
  readonly code = "BAD_INIT_OPTION";
}

/**
 * Writes a fresh node home: config files, a validator key, a node key, the validator's sign state and a genesis
 * with every module's defaults; what chaind needs, and what CometBFT needs on the same home.
 */
export function initHome(
  opts: InitHomeOptions,
  def: AppDefinition,
): { layout: HomeLayout; genesis: GenesisDoc; validatorAddress: string; validatorPubKey: Uint8Array } {
  const layout = new HomeLayout(opts.home);
  // Bech32's human-readable part, lower case; the `valoper`/`valcons` forms add to it.
  if (!/^[a-z][a-z0-9]{0,75}$/.test(opts.bech32Prefix))
    throw new InitHomeError(
      `bech32 prefix must be lower-case letters and digits, starting with a letter: ${JSON.stringify(opts.bech32Prefix)}`,
    );
  if (existsSync(layout.genesisJson) && !opts.overwrite) {
    throw new HomeExistsError(
      `genesis.json file already exists: ${layout.genesisJson} (use --overwrite to replace it)`,
    );
  }
  mkdirSync(layout.configDir, { recursive: true, mode: 0o700 });
  mkdirSync(layout.dataDir, { recursive: true, mode: 0o700 });

  const assembly = def.assemble({ chainId: opts.chainId, bech32Prefix: opts.bech32Prefix, minGasPrices: "" });
  const appState: Record<string, unknown> = {};
  for (const m of assembly.modules) if (m.defaultGenesis) appState[m.name] = m.defaultGenesis();
  const genesis: GenesisDoc = {
    app_name: def.name,
    app_version: def.version,
    genesis_time: new Date().toISOString(),
    chain_id: opts.chainId,
    bech32_prefix: opts.bech32Prefix,
    initial_height: 1,
    app_hash: null,
    app_state: appState,
    consensus: { params: defaultConsensusParams() },
  };

  const app = defaultAppConfig();
  app.minimumGasPrices = `${opts.minGasPrice ?? INIT_MIN_GAS_PRICE}${genesisBondDenom(genesis)}`;
  opts.tuneApp?.(app);
  const node = defaultNodeConfig(opts.moniker);
  opts.tuneNode?.(node);
  const client = { ...defaultClientConfig(opts.chainId), node: node.rpc.laddr };
  opts.tuneClient?.(client);
  writeFileSync(layout.appToml, renderAppToml(app));
  writeFileSync(layout.configToml, renderConfigToml(node));
  writeFileSync(layout.clientToml, renderClientToml(client));
  const signer = writeNewPrivValidatorKey(layout.privValidatorKey);
  // What CometBFT needs of a home besides: the node key and the validator's sign state (nothing signed yet).
  writeNewNodeKey(layout.nodeKey);
  writeFileSync(layout.privValidatorState, signStateJson({ height: 0n, round: 0, step: 0 }), { mode: 0o600 });
  writeGenesis(layout.genesisJson, genesis);
  return {
    layout,
    genesis,
    validatorAddress: toHexUpper(signer.address),
    validatorPubKey: signer.pubKey,
  };
}
