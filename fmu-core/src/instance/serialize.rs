//! Serialized FMU states: a snapshot as bytes (little endian, with a
//! checksum), and bytes read back with every value checked as a setter
//! checks it.

use super::layout::{Decoded, Values};
use super::snapshot::{SNAPSHOT_MAGIC, Snapshot};
use super::{Instance, fnv1a};
use crate::model::Model;
use crate::solver::{Carried, Reuse, ReuseRecord, Segment, Stats};
use crate::status::{FmiResult, Status};
use nalgebra::SVector;

/// First bytes of a serialized FMU state.
const SERIAL_MAGIC: &[u8; 8] = b"FLUIDFMU";
/// Format version of a serialized FMU state.
const SERIAL_VERSION: u32 = 4;

impl<M: Model<NX>, const NX: usize> Instance<M, NX> {
    /// Serializes a snapshot into bytes (little endian, with a checksum).
    pub fn serialize(&self, snap: &Snapshot<M, NX>) -> Vec<u8> {
        let mut b = Vec::with_capacity(self.serialized_size(snap));
        b.extend_from_slice(SERIAL_MAGIC);
        b.extend_from_slice(&SERIAL_VERSION.to_le_bytes());
        b.extend_from_slice(&snap.token_hash.to_le_bytes());
        b.extend_from_slice(&(NX as u32).to_le_bytes());
        b.extend_from_slice(&(snap.values.len() as u32).to_le_bytes());
        let mut put = |v: f64| b.extend_from_slice(&v.to_le_bytes());
        snap.values.raw().iter().for_each(|v| put(*v));
        snap.x.iter().for_each(|v| put(*v));
        put(snap.time);
        put(snap.start_time);
        put(snap.stop_time.unwrap_or(f64::NAN));
        put(snap.carried.h);
        put(snap.last_successful_time);
        // What the real-time methods reuse, in a block of fixed size (zeros
        // when there is nothing): a flag, the Jacobian's age, the step size,
        // coefficient and uses of the LU factors, the Jacobian by columns.
        // The factors and their inverse follow from these.
        let record = snap.carried.reuse.as_ref().map(|r| r.record());
        let record = record.as_ref();
        let jac = record.and_then(|r| r.jac.as_ref());
        put(if jac.is_some() { 1.0 } else { 0.0 });
        put(record.map_or(0.0, |r| f64::from(r.jac_age)));
        put(record.map_or(0.0, |r| r.lu_h));
        put(record.map_or(0.0, |r| r.lu_gamma));
        put(record.map_or(0.0, |r| f64::from(r.lu_uses)));
        for i in 0..NX * NX {
            put(jac.map_or(0.0, |j| j.as_slice()[i]));
        }
        // Stepping ahead (solver 6): whether the inputs are held, and the
        // substep beyond the point (zeros when there is none): a flag, its
        // length, the point's place in it, the two earlier substeps'
        // lengths, the states before it, its ends and the rates at its end.
        let carried = &snap.carried;
        put(if carried.steady { 1.0 } else { 0.0 });
        let seg = carried.ahead.as_ref();
        put(if seg.is_some() { 1.0 } else { 0.0 });
        put(seg.map_or(0.0, |s| s.h));
        put(seg.map_or(0.0, |s| s.at));
        put(seg.map_or(0.0, |s| s.hp));
        put(seg.map_or(0.0, |s| s.hq));
        let parts = seg.map(|s| [s.xq, s.xp, s.x0, s.x1, s.f1]);
        for k in 0..5 {
            for i in 0..NX {
                put(parts.map_or(0.0, |p| p[k][i]));
            }
        }
        for s in [
            snap.stats.rhs_evals,
            snap.stats.jacobian_evals,
            snap.stats.factorizations,
            snap.stats.accepted,
            snap.stats.rejected,
        ] {
            b.extend_from_slice(&s.to_le_bytes());
        }
        let sum = fnv1a(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    /// Size in bytes of a serialized snapshot.
    pub fn serialized_size(&self, snap: &Snapshot<M, NX>) -> usize {
        Self::HEADER + 8 * (snap.values.len() + NX + 5) + Self::REUSE_BYTES + 8 * 5 + 8
    }

    /// Bytes of the serialized reuse block of the real-time methods (the
    /// Jacobian's, then stepping ahead's).
    const REUSE_BYTES: usize = 8 * (5 + NX * NX) + 8 * (6 + 5 * NX);

    const HEADER: usize = 8 + 4 + 8 + 4 + 4;

    /// Reads a serialized snapshot back; truncated, corrupted or foreign
    /// bytes are rejected with a message, and every restored value goes
    /// through the same checks as a setter of that variable.
    pub fn deserialize(&self, function: &str, bytes: &[u8]) -> FmiResult<Snapshot<M, NX>> {
        let reject = |why: &str| -> FmiResult<Snapshot<M, NX>> {
            self.fail(
                Status::Error,
                function,
                &format!("serialized FMU state rejected: {why}"),
            )
        };
        let header = Self::HEADER;
        if bytes.len() < header + 8 {
            return reject(&format!("only {} bytes (truncated?)", bytes.len()));
        }
        if &bytes[0..8] != SERIAL_MAGIC {
            return reject("not a state of this project's FMUs (bad magic bytes)");
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap_or([0; 4]));
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap_or([0; 8]));
        if u32_at(8) != SERIAL_VERSION {
            return reject(&format!(
                "format version {} is not {SERIAL_VERSION}",
                u32_at(8)
            ));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if fnv1a(body).to_le_bytes() != sum {
            return reject("checksum mismatch (corrupted or truncated)");
        }
        if u64_at(12) != self.token_hash {
            return reject("it belongs to another model or another build of this model");
        }
        if u32_at(20) as usize != NX || u32_at(24) as usize != self.values.len() {
            return reject("state or variable count differs from this model");
        }
        let n_values = self.values.len();
        let expected = header + 8 * (n_values + NX + 5) + Self::REUSE_BYTES + 8 * 5 + 8;
        if bytes.len() != expected {
            return reject(&format!("{} bytes, expected {expected}", bytes.len()));
        }
        let f64_at = |o: usize| f64::from_le_bytes(bytes[o..o + 8].try_into().unwrap_or([0; 8]));
        let mut o = header;
        let mut next = || {
            let v = f64_at(o);
            o += 8;
            v
        };
        let values = Values::from_raw((0..n_values).map(|_| next()).collect());
        let x = SVector::<f64, NX>::from_fn(|_, _| next());
        let time = next();
        let start_time = next();
        let stop = next();
        let h = next();
        let last_successful_time = next();
        let (has_jac, jac_age, lu_h, lu_gamma, lu_uses) = (next(), next(), next(), next(), next());
        let jac = nalgebra::SMatrix::<f64, NX, NX>::from_iterator((0..NX * NX).map(|_| next()));
        let (steady, has_seg, seg_h, seg_at) = (next(), next(), next(), next());
        let (seg_hp, seg_hq) = (next(), next());
        let mut vector = || SVector::<f64, NX>::from_fn(|_, _| next());
        let (xq, xp, x0) = (vector(), vector(), vector());
        let (x1, f1) = (vector(), vector());
        let mut stats_o = o;
        let mut next_u64 = || {
            let v = u64_at(stats_o);
            stats_o += 8;
            v
        };
        let stats = Stats {
            rhs_evals: next_u64(),
            jacobian_evals: next_u64(),
            factorizations: next_u64(),
            accepted: next_u64(),
            rejected: next_u64(),
        };
        // Every restored value passes its setter's checks (outputs' slots
        // are unused and must be the zero they were written as).
        let outputs = self.layout.inputs..self.layout.inputs + self.layout.outputs;
        for (slot, (row, v)) in self.rows.iter().zip(values.raw()).enumerate() {
            if outputs.contains(&slot) {
                if *v != 0.0 {
                    return reject(&format!(
                        "the unused slot of output '{}' is not zero",
                        row.name
                    ));
                }
            } else if let Err(e) = row.check(*v) {
                return reject(&e);
            }
        }
        let times_ok = [time, start_time, last_successful_time]
            .iter()
            .all(|v| v.is_finite())
            && start_time <= time
            && last_successful_time <= time;
        if !times_ok {
            return reject("its times are not finite or not in order (start <= last good <= now)");
        }
        if !(stop.is_nan() || (stop.is_finite() && stop >= start_time)) {
            return reject("its stop time is not finite or before its start time");
        }
        if !(h.is_finite() && h >= 0.0) {
            return reject("its carried step size is not a finite number >= 0");
        }
        if !x.iter().all(|v| v.is_finite()) {
            return reject("non-finite numbers in the state vector");
        }
        let count_ok = |v: f64| v >= 0.0 && v <= f64::from(u32::MAX) && v.fract() == 0.0;
        let age_ok = count_ok(jac_age) && count_ok(lu_uses);
        let reuse = match has_jac {
            0.0 | 1.0 if age_ok => {
                let has_jac = has_jac == 1.0;
                let record = ReuseRecord {
                    jac: has_jac.then_some(jac),
                    jac_age: jac_age as u32,
                    lu_h,
                    lu_gamma,
                    lu_uses: lu_uses as u32,
                };
                let unused = jac.iter().all(|v| *v == 0.0);
                match Reuse::from_record(&record) {
                    Some(r) if has_jac || unused => Some(Box::new(r)),
                    _ => {
                        return reject(
                            "its reused Jacobian or LU step size is not finite, negative or \
                             inconsistent",
                        );
                    }
                }
            }
            _ => return reject("its Jacobian flag or age is malformed"),
        };
        let segment = Segment {
            xq,
            hq: seg_hq,
            xp,
            hp: seg_hp,
            x0,
            x1,
            f1,
            h: seg_h,
            at: seg_at,
        };
        let ahead = match (has_seg, steady) {
            (0.0, 0.0 | 1.0)
                if [seg_h, seg_at, seg_hp, seg_hq]
                    .iter()
                    .chain(&xq)
                    .chain(&xp)
                    .chain(&x0)
                    .chain(&x1)
                    .chain(&f1)
                    .all(|v| *v == 0.0) =>
            {
                None
            }
            (1.0, 1.0) if segment.is_valid() => Some(segment),
            _ => {
                return reject(
                    "its substep beyond the communication point is malformed (flags, non-finite \
                     numbers, a length <= 0 or the point outside it)",
                );
            }
        };
        if let Err(why) = self.check_structure(&values) {
            return reject(&why);
        }
        let decoded = self.layout.decode::<M, NX>(&values);
        let model = match self.configure(&decoded) {
            Ok(m) => m,
            Err(e) => return reject(&format!("its parameter values are invalid: {e}")),
        };
        let Decoded {
            inputs, settings, ..
        } = decoded;
        Ok(Snapshot {
            magic: SNAPSHOT_MAGIC,
            token_hash: self.token_hash,
            values,
            inputs,
            x,
            time,
            start_time,
            stop_time: if stop.is_nan() { None } else { Some(stop) },
            settings,
            carried: Carried {
                h,
                reuse,
                ahead,
                steady: steady == 1.0,
            },
            stats,
            last_successful_time,
            model,
        })
    }
}
