//! The FMU's resource folder reaches `configure` through the context:
//! decoded from FMI 2's `fmuResourceLocation` URI and FMI 3's
//! `resourcePath`; a resource that a chosen right-hand side needs but the
//! master did not provide is a clear error, never a crash.

mod common;

use common::relaxation as oc;
use common::*;
use fmu_core::logging::Sink;
use fmu_core::nalgebra::SVector;
use fmu_core::{Context, FmiVersion, Instance, Model, ResourceFolder};
use std::ffi::CString;
use std::path::PathBuf;

/// A resource folder with `gain.txt` holding `text`.
fn folder(name: &str, text: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("fluidfmu resources {name} {}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("gain.txt"), text).unwrap();
    dir
}

#[test]
fn fmi2_resource_uri_reaches_configure() {
    let dir = folder("fmi2", "2.5\n");
    let uri = CString::new(format!(
        "file://{}",
        dir.display().to_string().replace(' ', "%20")
    ))
    .unwrap();
    let f = Fmi2::with_resources(&token(), 1, Some(&uri)).expect("instantiation");
    assert!(f.log.saw("resources in"));
    assert_eq!(f.set_int(vr("law"), 2), OK);
    f.init();
    // dy1 = gain k (u - y1) at the start, y1 = 0, u = 1.
    assert_eq!(f.get(vr("dy1")), 2.5e3);
}

#[test]
fn fmi3_resource_path_reaches_configure() {
    let dir = folder("fmi3", "0.5");
    let path = CString::new(format!("{}/", dir.display())).unwrap();
    let f = Fmi3::with_resources(&token(), Some(&path)).expect("instantiation");
    assert_eq!(f.set_int(vr("law"), 2), OK);
    // SAFETY: live instance.
    unsafe {
        assert_eq!(
            oc::fmi3EnterInitializationMode(f.c, 0, 0.0, 0.0, 0, 0.0),
            OK
        );
        assert_eq!(oc::fmi3ExitInitializationMode(f.c), OK);
    }
    assert_eq!(f.get(vr("dy1")), 500.0);
}

#[test]
fn a_missing_or_unreadable_resource_is_a_clear_error() {
    // No resource location at all: the law that needs one is refused, the
    // instance keeps the law it had.
    let f = Fmi2::new();
    assert_eq!(f.set_int(vr("law"), 2), ERROR);
    assert!(
        f.log.saw(
            "resource file 'gain.txt' is needed, but the master passed no fmuResourceLocation"
        )
    );
    f.init();
    assert_eq!(f.get_int(vr("law")), 1);
    assert_eq!(f.get(vr("dy1")), 1e3);
    // A location that does not exist, or is not a file URI.
    for uri in [
        "file:///no/such/folder/anywhere",
        "http://example.org/resources",
    ] {
        let uri = CString::new(uri).unwrap();
        let f = Fmi2::with_resources(&token(), 1, Some(&uri)).expect("instantiation");
        assert_eq!(f.set_int(vr("law"), 2), ERROR);
        assert!(f.log.saw("gain.txt"));
    }
    // A resource with the wrong content.
    let dir = folder("bad", "two and a half");
    let path = CString::new(dir.display().to_string()).unwrap();
    let f = Fmi3::with_resources(&token(), Some(&path)).expect("instantiation");
    assert_eq!(f.set_int(vr("law"), 2), ERROR);
    assert!(f.log.saw("gain.txt: 'two and a half' is not a number"));
}

/// A model whose default right-hand side needs a resource: with none, the
/// instance cannot be created, and the refusal says why.
mod needs_resource {
    use super::*;

    fmu_core::circuit! {
        model NeedsWeights {
            description: "A model whose default rates need a weights file",
            documentation: "# NeedsWeights\n",
            stop_time: 1.0,
            step_size: 1e-3,
        }
        states {
            /// The state
            y: nominal 1.0;
        }
        inputs Inputs {}
        outputs Outputs {
            /// The state
            y: ["1"] = x[state::y];
        }
        parameters Params {}
    }

    #[derive(Debug, Clone, PartialEq)]
    pub struct NeedsWeights {
        pub rate: f64,
    }

    impl Model<NX> for NeedsWeights {
        fn configure(_p: &Params, context: &Context) -> Result<Self, String> {
            let bytes = context.read_resource("weights.bin")?;
            Ok(NeedsWeights {
                rate: f64::from(bytes.len() as u32),
            })
        }
        fn initial_state(&self, _u: &Inputs) -> SVector<f64, NX> {
            SVector::zeros()
        }
        fn rates(&self, _u: &Inputs, _x: &SVector<f64, NX>) -> SVector<f64, NX> {
            SVector::from([self.rate])
        }
    }
}

#[test]
fn instantiation_fails_cleanly_without_a_needed_resource() {
    use needs_resource::NeedsWeights;
    let token = fmu_core::full_description::<NeedsWeights, 1>().instantiation_token();
    let none = ResourceFolder::from_fmi3_path(None);
    let err =
        Instance::<NeedsWeights, 1>::new(FmiVersion::Fmi3, "x", &token, none, Sink::None, true)
            .err()
            .expect("must refuse");
    let text = err.to_string();
    assert!(
        text.contains("cannot be set up")
            && text.contains("weights.bin")
            && text.contains("no resourcePath"),
        "{text}"
    );
    let dir = std::env::temp_dir().join(format!("fluidfmu weights {}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("weights.bin"), [0u8; 12]).unwrap();
    let found = ResourceFolder::from_fmi3_path(dir.to_str());
    let inst =
        Instance::<NeedsWeights, 1>::new(FmiVersion::Fmi3, "x", &token, found, Sink::None, true)
            .expect("with the file it works");
    assert_eq!(inst.states()[0], 0.0);
}
