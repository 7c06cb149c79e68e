import { join } from "node:path";

/** Where everything lives under a node's home folder (Cosmos layout). */
export class HomeLayout {
  constructor(readonly home: string) {}
  get configDir(): string {
    return join(this.home, "config");
  }
  get dataDir(): string {
    return join(this.home, "data");
  }
  get appToml(): string {
    return join(this.configDir, "app.toml");
  }
  get configToml(): string {
    return join(this.configDir, "config.toml");
  }
  get clientToml(): string {
    return join(this.configDir, "client.toml");
  }
  get genesisJson(): string {
    return join(this.configDir, "genesis.json");
  }
  get privValidatorKey(): string {
    return join(this.configDir, "priv_validator_key.json");
  }
  get nodeKey(): string {
    return join(this.configDir, "node_key.json");
  }
  get gentxDir(): string {
    return join(this.configDir, "gentx");
  }
  /** The LevelDB holding state, blocks and indexes. */
  get dbDir(): string {
    return join(this.dataDir, "application.db");
  }
  /** State snapshots: `<height>/<format>/` folders of chunk files and metadata (snapshots/snapshot-store.ts). */
  get snapshotsDir(): string {
    return join(this.dataDir, "snapshots");
  }
  /** CometBFT's last-signed record of the validator. */
  get privValidatorState(): string {
    return join(this.dataDir, "priv_validator_state.json");
  }
  get upgradeInfoJson(): string {
    return join(this.dataDir, "upgrade-info.json");
  }
}
