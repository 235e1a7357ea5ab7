//! Properties a game writes from any integer type or an exact decimal, and
//! the labels a player reads.

use bevy_container::decimal::{Decimal, DecimalError};
use bevy_container::props::{Kind, PlayerLabel, PlayerProp, PropNumber, PropValue, Props};

/// The largest whole number a property holds: 10^15.
const MAX: i64 = 1_000_000_000_000_000;

#[test]
fn every_narrow_integer_type_converts_whole() {
    let forty: PropNumber = "40".parse().expect("a number");
    assert_eq!(PropNumber::from(40i8), forty);
    assert_eq!(PropNumber::from(40i16), forty);
    assert_eq!(PropNumber::from(40i32), forty);
    assert_eq!(PropNumber::from(40u8), forty);
    assert_eq!(PropNumber::from(40u16), forty);
    assert_eq!(PropNumber::from(40u32), forty);
    assert_eq!(
        PropValue::from(-3i8),
        PropValue::Number(PropNumber::from(-3))
    );
    assert_eq!(
        PropValue::from(u32::MAX).to_string(),
        u32::MAX.to_string(),
        "the widest narrow type"
    );
}

#[test]
fn wide_integer_types_convert_within_the_limit() {
    let forty: PropNumber = "40".parse().expect("a number");
    assert_eq!(PropNumber::try_from(40i64), Ok(forty));
    assert_eq!(PropNumber::try_from(40u64), Ok(forty));
    assert_eq!(PropNumber::try_from(40isize), Ok(forty));
    assert_eq!(PropNumber::try_from(40usize), Ok(forty));
    assert_eq!(
        PropValue::try_from(MAX).map(|v| v.to_string()),
        Ok(MAX.to_string())
    );
    assert_eq!(
        PropValue::try_from(-MAX).map(|v| v.to_string()),
        Ok((-MAX).to_string())
    );
    for past in [MAX + 1, -MAX - 1, i64::MAX, i64::MIN] {
        assert_eq!(
            PropNumber::try_from(past),
            Err(DecimalError::TooLarge),
            "{past}"
        );
    }
    assert_eq!(PropValue::try_from(u64::MAX), Err(DecimalError::TooLarge));
    if cfg!(target_pointer_width = "64") {
        assert_eq!(PropValue::try_from(usize::MAX), Err(DecimalError::TooLarge));
        assert_eq!(PropValue::try_from(isize::MIN), Err(DecimalError::TooLarge));
    }
}

#[test]
fn exact_decimals_convert_and_read_back() {
    let weight: Decimal = "2.125".parse().expect("a decimal");
    let n = PropNumber::try_from(weight).expect("within the limit");
    assert_eq!(n.to_string(), "2.125");
    assert_eq!(n.to_decimal(), Some(weight));
    let sack = Props::new([("weight", PropValue::try_from(weight).expect("fits"))])
        .expect("valid properties");
    assert_eq!(sack.canonical(), r#"{"weight":2.125}"#);
    let huge = Decimal::from_micros(u128::MAX);
    assert_eq!(PropNumber::try_from(huge), Err(DecimalError::TooLarge));
    assert_eq!(PropNumber::from(-1).to_decimal(), None);
}

#[test]
fn labels_read_as_words() {
    let worn = Props::new([("durability", 40)]).expect("valid properties");
    assert_eq!(PlayerLabel("axe", &worn).to_string(), "Axe (durability 40)");
    assert_eq!(Kind::new("axe", worn).player_label(), "Axe (durability 40)");
    let letter = Props::new([
        ("made-by", PropValue::from("Ilsa")),
        ("sealed", PropValue::from(false)),
        ("urgent", PropValue::from(true)),
    ])
    .expect("valid properties");
    assert_eq!(
        PlayerLabel("quest-letter", &letter).to_string(),
        "Quest letter (made by Ilsa, not sealed, urgent)"
    );
    assert_eq!(PlayerLabel("ölkanne", &Props::EMPTY).to_string(), "Ölkanne");
    assert_eq!(
        PlayerProp("weight", &PropValue::from(3u8)).to_string(),
        "weight 3"
    );
}
