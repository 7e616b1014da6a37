/** Judging a command or a turn's end: the orchestration (answerers, model calls, cache, log) over the pure core (src/core). */
export * from "../core/answers.ts";
export { commandVerdict, turnEndVerdict, neededMb } from "../core/verdict.ts";
export { judgeCommand, judgeTurnEnd, type CommandInput, type CommandJudgment, type TurnInput, type TurnJudgment, type AnswererName } from "./judge.ts";
export { availableMemoryMb } from "./memory.ts";
