import { describe, expect, it } from "vitest";
import { ToolCallAccumulator } from "./tool-call-accumulator.js";

describe("ToolCallAccumulator", () => {
  it("joins fragments by index, including interleaved parallel calls", () => {
    const accumulator = new ToolCallAccumulator();
    accumulator.add([{ index: 0, id: "call_a", function: { name: "read_file", arguments: "" } }]);
    accumulator.add([{ index: 1, id: "call_b", function: { name: "list_files", arguments: "" } }]);
    accumulator.add([{ index: 0, function: { arguments: '{"file_' } }]);
    accumulator.add([{ index: 1, function: { arguments: '{"path":"x"}' } }]);
    accumulator.add([{ index: 0, function: { arguments: 'path":"a"}' } }]);
    expect(accumulator.result()).toEqual([
      { id: "call_a", name: "read_file", arguments: '{"file_path":"a"}' },
      { id: "call_b", name: "list_files", arguments: '{"path":"x"}' },
    ]);
  });

  it("separates calls that reuse index 0 but carry different ids", () => {
    const accumulator = new ToolCallAccumulator();
    accumulator.add([{ index: 0, id: "one", function: { name: "read_file", arguments: '{"file_path":"a"}' } }]);
    accumulator.add([{ index: 0, id: "two", function: { name: "read_file", arguments: '{"file_path":"b"}' } }]);
    expect(accumulator.result().map((call) => call.id)).toEqual(["one", "two"]);
  });
});
