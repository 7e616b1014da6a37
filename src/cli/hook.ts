/** verdict hook (placeholder until its issue lands). */
export async function main(argv: string[]): Promise<number> {
  void argv;
  console.error("verdict: hook is not built yet");
  return 2;
}
