// Types for packcheck-corpus.
export type Verdict = 'pass' | 'reject' | 'unchecked' | 'either';
export interface ModulePin { shape: number[]; bits: number; codes_sha256?: string; weight_f32_sha256?: string }
export interface ModuleView { shape: number[]; codes?: Uint8Array; weight?: Float32Array }
export type LogicalView = Record<string, ModuleView>;
export declare class Input {
  readonly caseId: string; readonly main: string; readonly dir: string; readonly files: string[];
  read(rel: string): Buffer;
  readMain(): Buffer;
}
export declare class Case {
  readonly id: string; readonly family: string; readonly name: string; readonly verdict: Verdict;
  readonly rejectRule: string | null; readonly rejectFamily: string | null; readonly layout: string | null;
  readonly profile: 'strict' | 'compat'; readonly rules: string[]; readonly modules: Record<string, ModulePin>;
  readonly tensorTypes: Record<string, string>; readonly expect: Record<string, unknown>; readonly dir: string;
  input(): Input;
}
export interface Reader {
  decode(c: Case, input: Input): LogicalView | Promise<LogicalView>;
  scope?(c: Case, input: Input): true | string | Promise<true | string>;
}
export interface CaseResult { id: string; verdict: Verdict; outcome: string; detail: string; status: 'ok' | 'FAIL' | 'expected-fail' | 'stale' | 'skip' }
export declare class Report {
  readonly results: CaseResult[];
  count(status: string): number; get(id: string): CaseResult | undefined; validPassed(): number; ok(): boolean;
}
export declare class Refused extends Error {}
export declare class Harness {
  constructor(reader: Reader, opts?: { ignore?: string[]; only?: string[]; profile?: 'strict' | 'compat' });
  run(): Promise<Report>;
  test(t?: unknown): Promise<Report>;
}
export declare function version(): string;
export declare function manifestSha256(): string;
export declare function corpusDir(): string;
export declare function cases(): Case[];
export declare function find(id: string): Case | undefined;
