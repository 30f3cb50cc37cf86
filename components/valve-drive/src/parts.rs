//! The drive and the carriage as parts of a composed circuit
//! ([`fmu_core::compose`]): the drive's rod flange takes the rod's motion
//! and gives the hydraulic force, the carriage's flange gives the motion
//! and takes the force.

use crate::carriage::{Carriage, CarriageState, CarriageStates};
use crate::drive::{DriveState, DriveStates, ValveDrive};
use fmu_core::StateGroup;
use fmu_core::compose::{Part, PartClamp, Partials, Port, StateSpec};
use fmu_core::{Derived, EventIndicator};

/// The hydraulic assembly (V1-V5, V7) as a part: ports `U` (the valve
/// command, V) and `rod` (the piston rod: its position and velocity in,
/// the hydraulic force p1 A1 - p2 A2 out).
#[derive(Debug, Clone, PartialEq)]
pub struct DrivePart {
    /// The drive.
    pub drive: ValveDrive,
}

/// Port slots of [`DrivePart`]: the command, then the rod's position,
/// velocity and force.
mod drive_slot {
    pub const U: usize = 0;
    pub const S: usize = 1;
    pub const V: usize = 2;
    pub const F: usize = 3;
}

const DRIVE_PORTS: [Port; 2] = [
    Port::signal_in("U", "Valve command, V"),
    Port::flange(
        "rod",
        "Piston rod: position and velocity in, the hydraulic force on it out",
    ),
];

impl Part for DrivePart {
    fn ports(&self) -> &[Port] {
        &DRIVE_PORTS
    }

    fn states(&self) -> &[StateSpec] {
        DriveStates::SPECS
    }

    fn event_indicators(&self) -> &[EventIndicator] {
        &ValveDrive::EVENT_INDICATORS
    }

    fn derived(&self) -> Vec<Derived> {
        self.drive.derived()
    }

    /// The compensator's throttle coefficient, held inside its range.
    fn clamps(&self) -> Vec<PartClamp> {
        let c = self.drive.throttle_clamp(DriveStates::K);
        vec![PartClamp {
            state: c.state,
            lower: c.lower,
            upper: c.upper,
        }]
    }

    fn initial_state(&self, _ports: &[f64], x: &mut [f64]) {
        x.copy_from_slice(self.drive.initial.as_slice());
    }

    /// The force into the drive at the rod: minus the hydraulic force it
    /// exerts, -(p1 A1 - p2 A2).
    fn through(&self, x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        let s = DriveState::from_column_slice(x);
        ports[drive_slot::F] = -self.drive.force(&s);
        if let Some(d) = d {
            *d.state(drive_slot::F, DriveStates::p1) = -self.drive.cylinder.a1;
            *d.state(drive_slot::F, DriveStates::p2) = self.drive.cylinder.a2;
        }
    }

    /// V1-V5 with the rod's motion from the flange.
    fn rates(&self, x: &[f64], ports: &[f64], dx: &mut [f64], d: Option<&mut Partials<'_>>) {
        let s = DriveState::from_column_slice(x);
        let (u, rod_x, rod_v) = (
            ports[drive_slot::U],
            ports[drive_slot::S],
            ports[drive_slot::V],
        );
        match d {
            None => dx.copy_from_slice(self.drive.rates(u, &s, rod_x, rod_v).rates.as_slice()),
            Some(d) => {
                let e = self.drive.eval(u, &s, rod_x, rod_v);
                dx.copy_from_slice(e.rates.as_slice());
                for r in 0..6 {
                    for c in 0..6 {
                        *d.state(r, c) = e.jac[(r, c)];
                    }
                    *d.slot(r, drive_slot::U) = e.d_u[r];
                    *d.slot(r, drive_slot::S) = e.d_x[r];
                    *d.slot(r, drive_slot::V) = e.d_v[r];
                }
            }
        }
    }

    fn event_indicator_values(&self, x: &[f64], _ports: &[f64], z: &mut [f64]) {
        self.drive
            .event_indicator_values(&DriveState::from_column_slice(x), z);
    }
}

/// The sliding carriage (V6) as a part: port `rod` gives the mass's
/// position and velocity and takes the net force on it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CarriagePart {
    /// The carriage.
    pub carriage: Carriage,
}

/// Port slots of [`CarriagePart`]: the rod's position, velocity, force.
mod carriage_slot {
    pub const S: usize = 0;
    pub const V: usize = 1;
    pub const F: usize = 2;
}

const CARRIAGE_PORTS: [Port; 1] = [Port::flange_mass(
    "rod",
    "The mass on the rod: its position and velocity out, the net force on it in",
)];

impl Part for CarriagePart {
    fn ports(&self) -> &[Port] {
        &CARRIAGE_PORTS
    }

    fn states(&self) -> &[StateSpec] {
        CarriageStates::SPECS
    }

    fn event_indicators(&self) -> &[EventIndicator] {
        &Carriage::EVENT_INDICATORS
    }

    fn derived(&self) -> Vec<Derived> {
        self.carriage.derived()
    }

    /// At rest at `x_0`.
    fn initial_state(&self, _ports: &[f64], x: &mut [f64]) {
        x.fill(0.0);
        x[CarriageStates::x] = self.carriage.x0;
    }

    fn across(&self, x: &[f64], ports: &mut [f64], d: Option<&mut Partials<'_>>) {
        ports[carriage_slot::S] = x[CarriageStates::x];
        ports[carriage_slot::V] = x[CarriageStates::v];
        if let Some(d) = d {
            *d.state(carriage_slot::S, CarriageStates::x) = 1.0;
            *d.state(carriage_slot::V, CarriageStates::v) = 1.0;
        }
    }

    /// V6 under the net force at the rod.
    fn rates(&self, x: &[f64], ports: &[f64], dx: &mut [f64], d: Option<&mut Partials<'_>>) {
        let e = self.carriage.eval(
            &CarriageState::from_column_slice(x),
            ports[carriage_slot::F],
        );
        dx.copy_from_slice(e.rates.as_slice());
        if let Some(d) = d {
            for r in 0..3 {
                for c in 0..3 {
                    *d.state(r, c) = e.jac[(r, c)];
                }
                *d.slot(r, carriage_slot::F) = e.d_force[r];
            }
        }
    }

    fn event_indicator_values(&self, x: &[f64], _ports: &[f64], z: &mut [f64]) {
        self.carriage
            .event_indicator_values(&CarriageState::from_column_slice(x), z);
    }
}
