import { describe, expect, it } from "vitest";
import { parseCsv } from "./csv-parse.js";

describe("parseCsv", () => {
  it("splits fields and rows, with CRLF or LF, and ignores a final line break and a byte order mark", () => {
    expect(parseCsv("\ufeffname,count\r\nbooks,3\nlamps,\n").rows).toEqual([
      ["name", "count"],
      ["books", "3"],
      ["lamps", ""],
    ]);
  });

  it("keeps commas, line breaks and doubled quotes inside quoted fields", () => {
    expect(parseCsv('a,"b, c","say ""hi""\nthere"\n').rows).toEqual([["a", "b, c", 'say "hi"\nthere']]);
  });

  it("keeps markup as plain text for the table's text nodes", () => {
    expect(parseCsv('<img src=x onerror=alert(1)>,"<script>x</script>"').rows).toEqual([["<img src=x onerror=alert(1)>", "<script>x</script>"]]);
  });

  it("stops after maxRows and says the file was cut", () => {
    expect(parseCsv("1\n2\n3\n4\n", 2)).toEqual({ rows: [["1"], ["2"]], cut: true });
    expect(parseCsv("1\n2\n", 2)).toEqual({ rows: [["1"], ["2"]], cut: false });
  });

  it("runs an unclosed quote to the end instead of failing", () => {
    expect(parseCsv('a,"b\nc').rows).toEqual([["a", "b\nc"]]);
  });
});
