use super::*;

#[test]
fn a_cell_of_another_kind_is_a_mismatch_naming_both_kinds() {
    let refused = i64::from_cell(Cell::Text("3".into())).unwrap_err();
    assert_eq!(
        refused,
        CellMismatch::Kind {
            expected: "an integer",
            found: "text"
        }
    );
    assert_eq!(refused.to_string(), "expected an integer, found text");
    assert_eq!(
        String::from_cell(Cell::Null).unwrap_err().to_string(),
        "expected text, found NULL"
    );
}

#[test]
fn a_flag_is_zero_or_one_and_nothing_else() {
    assert_eq!(bool::from_cell(Cell::Int(1)), Ok(true));
    assert_eq!(bool::from_cell(Cell::Int(0)), Ok(false));
    let refused = bool::from_cell(Cell::Int(2)).unwrap_err();
    assert_eq!(refused, CellMismatch::NotAFlag(2));
    assert_eq!(refused.to_string(), "expected 0 or 1, found 2");
    assert_eq!(
        bool::from_cell(Cell::Real(1.0)).unwrap_err().to_string(),
        "expected a flag, found a real"
    );
}

#[test]
fn null_is_none_for_an_optional_column_and_a_mismatch_still_refuses() {
    assert_eq!(Option::<Vec<u8>>::from_cell(Cell::Null), Ok(None));
    assert_eq!(
        Option::<Vec<u8>>::from_cell(Cell::Int(7))
            .unwrap_err()
            .to_string(),
        "expected bytes, found an integer"
    );
}
