import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { AddressCodec } from "../../../node/src/app/address-codec.js";
import { Coins } from "../../../node/src/app/coins.js";
import { type AppDefinition, standardAppDefinition } from "../../../node/src/chain/app-definition.js";
import { addGenesisAccount } from "../../../node/src/chain/genesis-accounts.js";
import { addGenesisValidator, setGovPeriods } from "../../../node/src/chain/genesis-validators.js";
import { initHome, TESTNET_MIN_GAS_PRICE } from "../../../node/src/chain/init-home.js";
import type { DirectSigner } from "../../../node/src/client/direct-signing.js";
import type { AppConfig } from "../../../node/src/config/app-config.js";
import { type GenesisDoc, writeGenesis } from "../../../node/src/config/genesis.js";
import type { NodeConfig } from "../../../node/src/config/node-config.js";
import { addressFromPubKey } from "../../../node/src/crypto/address.js";
import { signSecp256k1 } from "../../../node/src/crypto/secp256k1.js";

/** A test account with a real secp256k1 key. */
export interface TestAccount {
  address: string;
  priv: Uint8Array;
  pub: Uint8Array;
  signer(accountNumber: bigint, sequence: bigint): DirectSigner;
}

export function testAccount(seed: string, prefix = "sdk"): TestAccount {
  const priv = sha256(new TextEncoder().encode(seed));
  const pub = secp256k1.getPublicKey(priv, true);
  const address = new AddressCodec(prefix).toString(addressFromPubKey(pub));
  return {
    address,
    priv,
    pub,
    signer: (accountNumber, sequence) => ({
      pubKey: pub,
      accountNumber,
      sequence,
      sign: (b) => signSecp256k1(priv, b),
    }),
  };
}

export const TEST_DEFINITION: AppDefinition = standardAppDefinition("chaind", "0.0.0-test");

/** A fresh home in a temp folder with funded accounts; `cleanup` removes it. */
export function makeTestHome(
  opts: {
    chainId?: string;
    accounts?: { account: TestAccount; coins: string }[];
    tuneApp?: (c: AppConfig) => void;
    tuneNode?: (c: NodeConfig) => void;
    definition?: AppDefinition;
    /** Makes this account the bonded validator (self-delegating `stake`), so its votes carry the chain. */
    validator?: { account: TestAccount; stake: bigint };
    /** Short governance periods, e.g. 1500 ms, with a minimum deposit of 1000stake. */
    govPeriodMs?: number;
    /** Last changes to the genesis document before it is written. */
    tuneGenesis?: (genesis: GenesisDoc) => void;
  } = {},
): { home: string; chainId: string; cleanup: () => void } {
  const home = mkdtempSync(join(tmpdir(), "chaind-test-"));
  const chainId = opts.chainId ?? "test-chain";
  const { layout, genesis, validatorPubKey } = initHome(
    {
      home,
      moniker: "test",
      chainId,
      bech32Prefix: "sdk",
      overwrite: false,
      // As `chaind testnet` homes: fees are checked, and the test txs' ordinary fees pass.
      minGasPrice: TESTNET_MIN_GAS_PRICE,
      tuneApp: (c) => {
        c.api.address = "tcp://127.0.0.1:0";
        c.grpc.address = "127.0.0.1:0";
        c.telemetry.address = "127.0.0.1:0";
        opts.tuneApp?.(c);
      },
      tuneNode: (c) => {
        c.consensus.timeoutCommitMs = 100;
        // Tests run in parallel: every listener takes a port the OS picks and logs it.
        c.rpc.laddr = "tcp://127.0.0.1:0";
        opts.tuneNode?.(c);
      },
    },
    opts.definition ?? TEST_DEFINITION,
  );
  for (const a of opts.accounts ?? [])
    addGenesisAccount(genesis, a.account.address, Coins.parse(a.coins), false);
  if (opts.validator)
    addGenesisValidator(genesis, {
      operator: opts.validator.account.address,
      consensusPubKey: validatorPubKey,
      moniker: "test",
      amount: opts.validator.stake,
    });
  if (opts.govPeriodMs)
    setGovPeriods(genesis, {
      votingPeriodMs: opts.govPeriodMs,
      depositPeriodMs: opts.govPeriodMs,
      minDeposit: "1000stake",
    });
  opts.tuneGenesis?.(genesis);
  writeGenesis(layout.genesisJson, genesis);
  return { home, chainId, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}
