/** verdict uninstall (placeholder until its issue lands). */
export async function main(argv: string[]): Promise<number> {
  void argv;
  console.error("verdict: uninstall is not built yet");
  return 2;
}
