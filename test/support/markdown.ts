/**
 * The rows of the Markdown tables in `text`, each as its trimmed cells, so a test reads a table
 * the way a reader does, whatever padding the formatter aligned the columns with.
 */
export function tableRows(text: string): string[][] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.startsWith("|") && line.endsWith("|") && !/^\|[\s|:-]+\|$/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split("|")
        .map((cell) => cell.trim()),
    );
}
