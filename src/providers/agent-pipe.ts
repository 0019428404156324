// How a worker's ACP lines reach its agent process: the seam between AcpWorker and who
// holds the process (the keeper, providers/keeper/client.ts, or a direct child as the
// fallback, direct-pipe.ts). The same shape as the keeper client's AgentPipe (KEEPER.md).

export interface LineInfo {
  /** Part of the running turn's log sent again after an attach. */
  replay: boolean;
  /** That line had already been sent to a previous relay connection. */
  delivered: boolean;
}

export interface AgentPipe {
  readonly id: string;
  readonly pid: number;
  write(line: string): void;
  onLine(fn: (line: string, info: LineInfo) => void): void;
  onPromptResult(fn: (response: { result?: unknown; error?: unknown }) => void): void;
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  stderrTail(): string;
  setState(state: Record<string, unknown>): void;
  kill(): void;
  end(): void;
}

export interface PipeSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}
