/** verdict check (placeholder until its issue lands). */
export async function main(argv: string[]): Promise<number> {
  void argv;
  console.error("verdict: check is not built yet");
  return 2;
}
