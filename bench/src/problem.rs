//! The arithmetic every turn does: the question of turn `i`, the tool's sum and the answer
//! the mock derives from the tool result, so every final answer can be checked.

/// The name of the one tool.
pub const TOOL_NAME: &str = "add";
/// The tool's description, sent by both clients.
pub const TOOL_DESCRIPTION: &str = "Adds two integers and returns the sum.";

/// The two numbers of turn `turn`.
#[must_use]
pub fn operands(turn: usize) -> (i64, i64) {
    let i = i64::try_from(turn).unwrap_or(i64::MAX / 64);
    (i * 7 + 3, i * 13 + 1)
}

/// The user's question of turn `turn`.
#[must_use]
pub fn question(turn: usize) -> String {
    let (a, b) = operands(turn);
    format!("Add {a} and {b}.")
}

/// The numbers in a question (every run of ASCII digits).
#[must_use]
pub fn numbers(text: &str) -> Vec<i64> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect()
}

/// The model's final answer for a tool result `sum` (the mock's reply).
#[must_use]
pub fn answer(sum: &str) -> String {
    format!("The sum is {sum}.")
}

/// The answer turn `turn` must end with.
#[must_use]
pub fn expected_answer(turn: usize) -> String {
    let (a, b) = operands(turn);
    answer(&(a + b).to_string())
}

/// The answer's text split as the mock streams it (five deltas).
#[must_use]
pub fn answer_deltas(sum: &str) -> [String; 5] {
    ["The".to_owned(), " sum".to_owned(), " is".to_owned(), format!(" {sum}"), ".".to_owned()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_carries_the_operands_and_the_deltas_make_the_answer() {
        let (a, b) = operands(5);
        assert_eq!(numbers(&question(5)), vec![a, b]);
        assert_eq!(answer_deltas(&(a + b).to_string()).concat(), expected_answer(5));
    }
}
