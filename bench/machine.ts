import { cpus, totalmem } from "node:os";

/** The machine a run measured on: every figure is only meaningful next to this. */
export interface MachineDescription {
  cores: number;
  cpuModel: string;
  memoryGb: number;
  node: string;
  platform: string;
}

export function describeMachine(): MachineDescription {
  const list = cpus();
  return {
    cores: list.length,
    cpuModel: list[0]?.model.trim() ?? "unknown",
    memoryGb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}
