/** Judging: questions built from the policy, answers, and the pure verdict math. */
export * from "./answers.ts";
export { commandVerdict, turnEndVerdict, neededMb } from "./verdict.ts";
export { judgeCommand, judgeTurnEnd, type CommandInput, type CommandJudgment, type TurnInput, type TurnJudgment, type AnswererName } from "./judge.ts";
export { availableMemoryMb } from "./memory.ts";
