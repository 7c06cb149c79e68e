import type { Logger } from "@chaind/core/logger";
import { file_sdk_auth_v1beta1_auth } from "@chaind/proto/sdk/auth/v1beta1/auth_pb";
import { file_sdk_crypto_ed25519_keys } from "@chaind/proto/sdk/crypto/ed25519/keys_pb";
import { file_sdk_crypto_multisig_keys } from "@chaind/proto/sdk/crypto/multisig/keys_pb";
import { file_sdk_crypto_secp256k1_keys } from "@chaind/proto/sdk/crypto/secp256k1/keys_pb";
import { file_sdk_tx_v1beta1_tx } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { AddressCodec } from "../app/address-codec.js";
import { BASE_AMINO_TYPES } from "../app/amino-base-types.js";
import { AminoEncoder } from "../app/amino-types.js";
import { App, type AppOptions, type TxPrecheck } from "../app/app.js";
import type { AppModule } from "../app/app-module.js";
import { TypeRegistry } from "../app/type-registry.js";
import { moduleAddress } from "../crypto/address.js";
import type { ParallelVerifier } from "../crypto/parallel-verifier.js";
import { AccountKeeper } from "../modules/auth/account-keeper.js";
import { type AnteHandler, createAnteHandler, FEE_COLLECTOR } from "../modules/auth/ante-handler.js";
import { AuthModule } from "../modules/auth/auth-module.js";
import { SignatureChecks } from "../modules/auth/signature-checks.js";
import { BankKeeper } from "../modules/bank/bank-keeper.js";
import { BankModule } from "../modules/bank/bank-module.js";
import { GovKeeper } from "../modules/gov/gov-keeper.js";
import { GovModule } from "../modules/gov/gov-module.js";
import { BONDED_POOL, NOT_BONDED_POOL, StakingKeeper } from "../modules/staking/staking-keeper.js";
import { StakingModule } from "../modules/staking/staking-module.js";
import type { UpgradeRegistry } from "../modules/upgrade/upgrade-handlers.js";
import { UpgradeKeeper } from "../modules/upgrade/upgrade-keeper.js";
import { UpgradeModule } from "../modules/upgrade/upgrade-module.js";
import type { StateStore } from "../store/state-store.js";

export interface StandardAppOptions {
  name: string;
  version: string;
  chainId: string;
  bech32Prefix: string;
  minGasPrices: string;
  /** Genesis `block.max_gas` (a running node only). */
  maxBlockGas?: bigint;
  /** Where a halting binary writes upgrade-info.json, and which plan heights to skip (a running node only). */
  upgrade?: { dataDir: string; skipHeights: readonly number[]; onProtocolVersion?: (v: bigint) => void };
  /** Where CheckTx's signatures may be verified ahead of its turn (a running node only). */
  parallelVerifier?: ParallelVerifier;
}

/** The keepers an app definition may hand to its own modules. */
export interface StandardKeepers {
  addresses: AddressCodec;
  types: TypeRegistry;
  accounts: AccountKeeper;
  bank: BankKeeper;
  staking: StakingKeeper;
  /** The gov module account's address: the authority of privileged messages. */
  authority: string;
}

/** Module accounts of the standard modules. */
export const MODULE_ACCOUNTS = [FEE_COLLECTOR, "gov", BONDED_POOL, NOT_BONDED_POOL];

/** Everything an App is made of except its state: built before the store opens (init, genesis checks). */
export interface AppAssembly {
  opts: AppOptions;
  modules: AppModule[];
  anteHandler: AnteHandler;
  txPrecheck: TxPrecheck;
  types: TypeRegistry;
  keepers: StandardKeepers;
}

/**
 * Wires the standard modules (auth, bank, staking, gov, upgrade). `upgrades` are the binary's upgrade
 * handlers and store upgrades; `extend` lets an app definition (a fixture version, a future chain) add its own
 * modules after the standard ones.
 */
export function assembleStandardApp(
  opts: StandardAppOptions,
  upgrades: UpgradeRegistry = { handlers: {} },
  extend: (k: StandardKeepers) => AppModule[] = () => [],
): AppAssembly {
  const addresses = new AddressCodec(opts.bech32Prefix);
  const types = new TypeRegistry([
    file_sdk_tx_v1beta1_tx,
    file_sdk_crypto_secp256k1_keys,
    file_sdk_crypto_ed25519_keys,
    file_sdk_crypto_multisig_keys,
    // Accounts are decoded before the app exists (genesis validation), so auth's file is needed up front.
    file_sdk_auth_v1beta1_auth,
  ]);
  const accounts = new AccountKeeper(addresses, types);
  const bank = new BankKeeper(accounts);
  const authority = addresses.toString(moduleAddress("gov"));
  const staking = new StakingKeeper(addresses, new AddressCodec(`${opts.bech32Prefix}valoper`), bank);
  const keepers: StandardKeepers = { addresses, types, accounts, bank, staking, authority };
  const blocked = new Set(MODULE_ACCOUNTS.map((n) => addresses.toString(moduleAddress(n))));
  const modules: AppModule[] = [];
  const upgrade = new UpgradeModule(new UpgradeKeeper(), {
    authority,
    registry: upgrades,
    dataDir: opts.upgrade?.dataDir,
    skipHeights: new Set(opts.upgrade?.skipHeights ?? []),
    modules: () => modules,
    onProtocolVersion: opts.upgrade?.onProtocolVersion,
  });
  modules.push(
    // The upgrade module goes first: its PreBlock decides whether the block runs at all.
    upgrade,
    new AuthModule(accounts, types, () => MODULE_ACCOUNTS),
    new BankModule(bank, accounts, { blocked, authority }),
    new StakingModule(staking, bank, accounts, types),
    new GovModule(new GovKeeper(addresses, bank), staking, accounts, types, authority),
    ...extend(keepers),
  );
  types.addAmino(BASE_AMINO_TYPES);
  for (const m of modules) {
    types.add(m.protoFiles);
    types.addAmino(m.aminoTypes ?? []);
  }
  const amino = new AminoEncoder(types);
  const signatures = new SignatureChecks(amino, opts.parallelVerifier);
  return {
    opts: { name: opts.name, version: opts.version, chainId: opts.chainId },
    modules,
    anteHandler: createAnteHandler(
      accounts,
      bank,
      { minGasPrices: opts.minGasPrices, maxBlockGas: opts.maxBlockGas },
      amino,
      signatures,
    ),
    txPrecheck: (tx, chainId) => signatures.precheck(tx, chainId),
    types,
    keepers,
  };
}

/** The App over an opened state store. */
export function createApp(a: AppAssembly, deps: { store: StateStore; logger: Logger }): App {
  return new App(a.opts, {
    ...deps,
    modules: a.modules,
    anteHandler: a.anteHandler,
    txPrecheck: a.txPrecheck,
    types: a.types,
    addresses: a.keepers.addresses,
  });
}
