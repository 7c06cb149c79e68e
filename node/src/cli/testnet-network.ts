import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { JsonValue } from "@bufbuild/protobuf";
import { cometNodeId } from "@chaind/core/comet-address";
import { AddressCodec } from "../app/address-codec.js";
import { Coins } from "../app/coins.js";
import type { AppDefinition } from "../chain/app-definition.js";
import { addGenesisAccount } from "../chain/genesis-accounts.js";
import { genesisBondDenom, setGovPeriods } from "../chain/genesis-validators.js";
import { HomeExistsError, initHome, TESTNET_MIN_GAS_PRICE } from "../chain/init-home.js";
import { signGenesisValidatorTx } from "../client/genesis-validator-tx.js";
import { openKeyring } from "../client/keyring/open-keyring.js";
import type { GenesisDoc } from "../config/genesis.js";
import { writeGenesis } from "../config/genesis.js";
import { HomeLayout } from "../config/home-layout.js";
import { readNodeConfig, renderConfigToml } from "../config/node-config.js";
import { readNodeKey } from "../config/node-key.js";

export interface NetworkOptions {
  outputDir: string;
  /** Home folders are `<outputDir>/<prefix><i>`, as simd's `testnet init-files` names them. */
  nodeDirPrefix: string;
  chainId: string;
  bech32Prefix: string;
  /** Self-delegation of each validator, in base units of the bond denom; one entry per validator. */
  stakes: bigint[];
  /** Names of the funded test keys, present in every home's keyring. */
  keyNames: string[];
  balance: Coins;
  blockTimeMs: number;
  gov: { votingPeriodMs: number; depositPeriodMs: number; minDeposit: string };
  /** Ports of node 0; node i listens on each plus i * portStep. */
  basePorts: NetworkPorts;
  portStep: number;
  overwrite: boolean;
}

export interface NetworkPorts {
  p2p: number;
  rpc: number;
  abci: number;
  api: number;
  grpc: number;
  telemetry: number;
}

/** The ports CometBFT and the SDK use by default: node 0 of a network gets them. */
export const DEFAULT_NETWORK_PORTS: NetworkPorts = {
  p2p: 26656,
  rpc: 26657,
  abci: 26658,
  api: 1317,
  grpc: 9090,
  telemetry: 26660,
};

export interface NetworkNode {
  name: string;
  home: string;
  node_id: string;
  validator: { address: string; operator_address: string; stake: string };
  listen: { p2p: string; rpc: string; abci: string; api: string; grpc: string };
}

export interface NetworkDescription {
  chain_id: string;
  nodes: NetworkNode[];
  keys: { name: string; address: string; mnemonic: string }[];
}

export class NetworkPortsError extends Error {
  readonly code = "BAD_NETWORK_PORTS";
}

/** Each node's ports: node i adds i * step to every port of node 0; refused when any two would collide. */
export function networkPorts(count: number, base: NetworkPorts, step: number): NetworkPorts[] {
  const all = Array.from({ length: count }, (_, i) => {
    const p = {} as NetworkPorts;
    for (const k of Object.keys(base) as (keyof NetworkPorts)[]) p[k] = base[k] + i * step;
    return p;
  });
  const seen = new Map<number, string>();
  all.forEach((ports, i) => {
    for (const [k, port] of Object.entries(ports)) {
      if (port < 1 || port > 65535)
        throw new NetworkPortsError(`node${i}'s ${k} port ${port} is outside 1-65535`);
      const other = seen.get(port);
      if (other)
        throw new NetworkPortsError(
          `node${i}'s ${k} port ${port} is also ${other}: choose another --starting-port`,
        );
      seen.set(port, `node${i}'s ${k} port`);
    }
  });
  return all;
}

/**
 * Writes the homes of a network of validators on loopback, as simd's `testnet init-files` does: each home with
 * its own validator and node keys, CometBFT as its engine, every listener on a port of its own and the other
 * validators as persistent peers; one genesis, shared, funding every validator and test key and holding each
 * validator's gentx. Every home's keyring (backend "test") holds its validator key and the test keys.
 */
export async function writeNetworkHomes(
  opts: NetworkOptions,
  def: AppDefinition,
): Promise<NetworkDescription> {
  const count = opts.stakes.length;
  const ports = networkPorts(count, opts.basePorts, opts.portStep);
  const homes = ports.map((_, i) => join(opts.outputDir, `${opts.nodeDirPrefix}${i}`));
  // Every home checked before any is written: a refusal at node 3 must not leave nodes 0-2 half made.
  const existing = homes.map((h) => new HomeLayout(h).genesisJson).find(existsSync);
  if (existing && !opts.overwrite)
    throw new HomeExistsError(
      `genesis.json file already exists: ${existing} (use --overwrite to replace it)`,
    );
  const made = homes.map((home, i) =>
    initHome(
      {
        home,
        moniker: `${opts.nodeDirPrefix}${i}`,
        chainId: opts.chainId,
        bech32Prefix: opts.bech32Prefix,
        overwrite: opts.overwrite,
        minGasPrice: TESTNET_MIN_GAS_PRICE,
        tuneApp: (c) => {
          c.api.enable = true;
          c.api.swagger = true;
          c.api.address = `tcp://127.0.0.1:${ports[i].api}`;
          c.grpc.enable = true;
          c.grpc.address = `127.0.0.1:${ports[i].grpc}`;
          c.telemetry.address = `127.0.0.1:${ports[i].telemetry}`;
        },
        tuneNode: (c) => {
          c.consensusEngine = "cometbft";
          c.proxyApp = `tcp://127.0.0.1:${ports[i].abci}`;
          c.rpc.laddr = `tcp://127.0.0.1:${ports[i].rpc}`;
          c.p2p.laddr = `tcp://127.0.0.1:${ports[i].p2p}`;
          // Every peer of a network on one machine shares 127.0.0.1, which CometBFT refuses by default.
          c.p2p.addrBookStrict = false;
          c.p2p.allowDuplicateIp = true;
          c.consensus.timeoutCommitMs = opts.blockTimeMs;
        },
        tuneClient: (c) => {
          c.keyringBackend = "test";
        },
      },
      def,
    ),
  );
  const nodeIds = homes.map((home) => cometNodeId(readNodeKey(new HomeLayout(home).nodeKey)));
  homes.forEach((home, i) => {
    const layout = new HomeLayout(home);
    const config = readNodeConfig(layout.configToml);
    config.p2p.persistentPeers = nodeIds
      .flatMap((id, j) => (j === i ? [] : [`${id}@127.0.0.1:${ports[j].p2p}`]))
      .join(",");
    writeFileSync(layout.configToml, renderConfigToml(config));
  });

  // One genesis for all: node 0's, with every account and gentx.
  const genesis: GenesisDoc = made[0].genesis;
  const denom = genesisBondDenom(genesis);
  const accounts = new AddressCodec(opts.bech32Prefix);
  const valoper = new AddressCodec(`${opts.bech32Prefix}valoper`);
  const keys: NetworkDescription["keys"] = [];
  const shared: { name: string; mnemonic: string }[] = [];
  const ring0 = openKeyring({ backend: "test", home: homes[0], prefix: opts.bech32Prefix });
  for (const name of opts.keyNames) {
    if (await ring0.exists(name)) await ring0.delete(name);
    const { info, mnemonic } = await ring0.add(name, {});
    addGenesisAccount(genesis, info.address, opts.balance, false);
    keys.push({ name, address: info.address, mnemonic });
    shared.push({ name, mnemonic: mnemonic! });
  }
  const { types } = def.assemble({
    chainId: opts.chainId,
    bech32Prefix: opts.bech32Prefix,
    minGasPrices: "",
  });
  const gentxs: JsonValue[] = [];
  const nodes: NetworkNode[] = [];
  for (const [i, home] of homes.entries()) {
    const ring = openKeyring({ backend: "test", home, prefix: opts.bech32Prefix });
    for (const k of i === 0 ? [] : shared) {
      if (await ring.exists(k.name)) await ring.delete(k.name);
      await ring.add(k.name, { mnemonic: k.mnemonic });
    }
    if (await ring.exists("validator")) await ring.delete("validator");
    const { info, mnemonic } = await ring.add("validator", {});
    const stake = opts.stakes[i];
    // Its self-delegation and as much again to spend (fees, deposits, votes).
    addGenesisAccount(genesis, info.address, opts.balance.add(Coins.from([{ denom, amount: stake }])), false);
    keys.push({ name: `${opts.nodeDirPrefix}${i}-validator`, address: info.address, mnemonic: mnemonic! });
    gentxs.push(
      await signGenesisValidatorTx(types, {
        key: await ring.signer("validator"),
        consensusPubKey: made[i].validatorPubKey,
        amount: Coins.from([{ denom, amount: stake }]),
        moniker: `${opts.nodeDirPrefix}${i}`,
        chainId: opts.chainId,
        bech32Prefix: opts.bech32Prefix,
      }),
    );
    nodes.push({
      name: `${opts.nodeDirPrefix}${i}`,
      home,
      node_id: nodeIds[i],
      validator: {
        address: info.address,
        operator_address: valoper.toString(accounts.fromString(info.address)),
        stake: `${stake}${denom}`,
      },
      listen: {
        p2p: `tcp://127.0.0.1:${ports[i].p2p}`,
        rpc: `tcp://127.0.0.1:${ports[i].rpc}`,
        abci: `tcp://127.0.0.1:${ports[i].abci}`,
        api: `http://127.0.0.1:${ports[i].api}`,
        grpc: `127.0.0.1:${ports[i].grpc}`,
      },
    });
  }
  genesis.app_state.genutil = { gen_txs: gentxs };
  setGovPeriods(genesis, opts.gov);
  for (const home of homes) writeGenesis(new HomeLayout(home).genesisJson, genesis);
  return { chain_id: opts.chainId, nodes, keys };
}
