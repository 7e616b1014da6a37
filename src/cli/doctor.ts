/** verdict doctor (placeholder until its issue lands). */
export async function main(argv: string[]): Promise<number> {
  void argv;
  console.error("verdict: doctor is not built yet");
  return 2;
}
