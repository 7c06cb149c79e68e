import type { AppDefinition } from "../chain/app-definition.js";

/**
 * A chain binary as its command line sees it: its name and version at once, its app only when a command needs
 * it, so `version` and `pre-upgrade` (which visor runs on every upgrade) never load the modules.
 */
export interface ChainProgram {
  name: string;
  version: string;
  app(): Promise<AppDefinition>;
}
