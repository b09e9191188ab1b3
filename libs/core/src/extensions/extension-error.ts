/** A mistake in an extension found at start; its message is the one line printed, naming where it is. */
export class ExtensionError extends Error {
  constructor(extension: string, where: string, problem: string) {
    super(`Extension "${extension}", ${where}: ${problem}`);
  }
}
